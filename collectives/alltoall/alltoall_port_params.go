package alltoall

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// AlltoallPortArgs are alltoall_port's parameters (alltoall_port.cu).
type AlltoallPortArgs struct {
	Chans        device.Ptr // PortChannelHandle[npeers]: my input to the peers' outputs (in place: my output to their scratch)
	SyncChans    device.Ptr // MemoryChannelHandle[npeers] for the start barrier
	Scratch      device.Ptr // in place: slot r (at r*chunk) receives rank r's chunk; 0 out of place
	In, Out      device.Ptr // my input and output at the launch's offsets
	SrcOff       uint64     // my input's offset in the channels' source buffer
	DstOff       uint64     // the peers' output offset (in place: 0, the scratch's start)
	Chunk        uint64     // bytes for each rank
	Rank, NRanks uint32
	State        device.Ptr // LaunchState
}

// AlltoallPort is the all-to-all over port channels (copy engine), one host.
var AlltoallPort = params.DeclareFunc[AlltoallPortArgs]("alltoall_port")
