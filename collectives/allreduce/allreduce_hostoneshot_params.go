package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// AllreduceHostOneShotArgs are the parameters of the allreduce_hostoneshot family
// (allreduce_hostoneshot.cu).
type AllreduceHostOneShotArgs struct {
	Chans     device.Ptr // port channels: my host-resident outbox to the peers' host-resident scratch
	Outbox    device.Ptr // two halves of slotBytes: half (launch & 1) holds my input while it is sent
	Scratch   device.Ptr // two halves of nranks slots: slot r of half (launch & 1) receives rank r's input
	SlotBytes uint64
	In, Out   device.Ptr // my input and output at the launch's offsets
	Count     uint64     // elements
	Rank      uint32
	NRanks    uint32
	State     device.Ptr
}

// AllreduceHostOneShot is the one-shot all-reduce of small messages through host-resident
// buffers (every peer over a network transport), one kernel per element type and operator.
var AllreduceHostOneShot = params.DeclareFamily[AllreduceHostOneShotArgs]("allreduce_hostoneshot")
