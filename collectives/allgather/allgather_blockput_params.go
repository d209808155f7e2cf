package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// AllgatherBlockput is the kernel of allgather_blockput.cu: allgather_put's
// parameters and LocalBlocks, with a channel array [block][peer].
var AllgatherBlockput = params.DeclareFunc[AllgatherBlockputArgs]("allgather_blockput")

// AllgatherBlockputArgs are allgather_blockput's parameters (allgather_blockput.cu).
type AllgatherBlockputArgs struct {
	OutChans     device.Ptr // MemoryChannelHandle[block][peer] to the peers' outputs
	In, Out      device.Ptr
	OutOff       uint64 // the outputs' offset, the same on every rank
	Chunk        uint64 // bytes each rank contributes
	Rank, NRanks uint32
	LocalBlocks  uint32     // the grid's last blocks that copy my chunk to my output (0 in place)
	State        device.Ptr // LaunchState
}
