package reducescatter

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// ReduceScatterHostOneShotArgs are the parameters of the reducescatter_hostoneshot family
// (reducescatter_hostoneshot.cu).
type ReduceScatterHostOneShotArgs struct {
	Chans     device.Ptr // port channels: my host-resident outbox to the peers' host-resident scratch
	Outbox    device.Ptr // two halves of slotBytes: half (launch & 1) holds my whole input while it is sent
	Scratch   device.Ptr // two halves of nranks slots: slot r of half (launch & 1) receives rank r's block for me
	SlotBytes uint64
	In, Out   device.Ptr // my input and output at the launch's offsets
	Count     uint64     // elements of each rank's output (a block)
	Rank      uint32
	NRanks    uint32
	State     device.Ptr
}

// ReduceScatterHostOneShot is the one-shot reduce-scatter of small messages through
// host-resident buffers (every peer over a network transport), one kernel per element
// type and operator.
var ReduceScatterHostOneShot = params.DeclareFamily[ReduceScatterHostOneShotArgs]("reducescatter_hostoneshot")
