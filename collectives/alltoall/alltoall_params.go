package alltoall

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// AlltoallArgs are alltoall_blockput's parameters (alltoall.cu).
type AlltoallArgs struct {
	Chans        device.Ptr // MemoryChannelHandle[block][peer] to the peers' outputs
	In, Out      device.Ptr // in place, the same buffer
	Off          uint64     // the buffers' offset, the same on every rank
	Chunk        uint64     // bytes each rank sends to each rank
	Rank, NRanks uint32
	InPlace      uint32
	LocalBlocks  uint32     // the grid's last blocks that copy my own chunk (0 in place)
	State        device.Ptr // LaunchState
}

// AlltoallBlockput is the all-to-all by SM puts (in place: pairwise swaps) with per-block
// handshakes.
var AlltoallBlockput = params.DeclareFunc[AlltoallArgs]("alltoall_blockput")
