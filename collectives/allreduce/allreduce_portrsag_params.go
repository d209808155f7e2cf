package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// AllreducePortRSAGArgs are the parameters of the allreduce_portrsag family
// (allreduce_portrsag.cu).
type AllreducePortRSAGArgs struct {
	RSChans, AGChans device.Ptr // port channels: my input to the peers' scratch, my output to theirs
	Scratch          device.Ptr // slot r (at r*slotBytes) receives rank r's share of my chunk
	SlotBytes        uint64
	In, Out          device.Ptr // my input and output at the launch's offsets
	InOff, OutOff    uint64     // those offsets in the channels' source buffers
	Count            uint64     // elements
	Rank, NRanks     uint32
	State            device.Ptr
}

// AllreducePortRSAG is the all-reduce over port channels only (any layout of hosts), one
// kernel per element type and operator.
var AllreducePortRSAG = params.DeclareFamily[AllreducePortRSAGArgs]("allreduce_portrsag")
