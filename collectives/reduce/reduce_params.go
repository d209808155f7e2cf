package reduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// ReduceReadArgs are the parameters of the reduce_read kernels (reduce.cu).
type ReduceReadArgs struct {
	Chans              device.Ptr // MemoryChannelHandle[npeers] to the peers' inputs
	In, Out            device.Ptr
	InOff              uint64 // the peers' inputs' offset in the buffers the channels reach
	Count              uint64 // elements of each rank's input
	Root, Rank, NRanks uint32
	State              device.Ptr // LaunchState
}

// ReduceRead is the root-reads-and-reduces family, one kernel per element type and operator.
var ReduceRead = params.DeclareFamily[ReduceReadArgs]("reduce_read")
