package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// AllreducePortOneShotArgs are the parameters of the allreduce_portoneshot family
// (allreduce_portoneshot.cu).
type AllreducePortOneShotArgs struct {
	Chans     device.Ptr // port channels: my input (in place: my output) to the peers' scratch
	Scratch   device.Ptr // two halves of nranks slots: slot r of half (launch & 1) receives rank r's input
	SlotBytes uint64
	In, Out   device.Ptr // my input and output at the launch's offsets
	InOff     uint64     // my input's offset in the channels' source buffer
	Count     uint64     // elements
	Rank      uint32
	NRanks    uint32
	State     device.Ptr
}

// AllreducePortOneShot is the one-shot all-reduce of small messages over port channels
// only (any layout of hosts), one kernel per element type and operator.
var AllreducePortOneShot = params.DeclareFamily[AllreducePortOneShotArgs]("allreduce_portoneshot")
