package gather

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// GatherReadArgs are the parameters of gather_read (gather.cu).
type GatherReadArgs struct {
	Chans              device.Ptr // MemoryChannelHandle[npeers] to the peers' inputs
	In, Out            device.Ptr
	InOff              uint64 // rank 0's input's offset in the buffer the channels reach
	InStride           uint64 // how much further rank r's input is than rank r-1's (in place)
	Bytes              uint64 // bytes of each rank's input
	Root, Rank, NRanks uint32
	State              device.Ptr // LaunchState
}

// GatherRead is the kernel of gather's read algorithm.
var GatherRead = params.DeclareFunc[GatherReadArgs]("gather_read")
