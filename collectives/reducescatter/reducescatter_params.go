package reducescatter

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// ReduceScatterReadArgs are the parameters of the reducescatter_read kernels
// (reducescatter.cu).
type ReduceScatterReadArgs struct {
	Chans        device.Ptr // MemoryChannelHandle[npeers] to the peers' inputs
	In, Out      device.Ptr
	InOff        uint64 // the peers' inputs' offset in the buffers the channels reach
	Count        uint64 // elements of each rank's output
	Rank, NRanks uint32
	State        device.Ptr // LaunchState
}

// ReduceScatterRead is the read-and-reduce family, one kernel per element type and operator.
var ReduceScatterRead = params.DeclareFamily[ReduceScatterReadArgs]("reducescatter_read")
