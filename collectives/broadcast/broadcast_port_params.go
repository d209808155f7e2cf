package broadcast

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// BroadcastPortArgs are broadcast_port's parameters (broadcast_port.cu).
type BroadcastPortArgs struct {
	Chans              device.Ptr // PortChannelHandle[npeers]: my input (in place: my output) to the peers' outputs
	SyncChans          device.Ptr // MemoryChannelHandle[npeers] for the start barrier
	In, Out            device.Ptr // my input and output at the launch's offsets
	SrcOff             uint64     // my input's offset in the channels' source buffer
	DstOff             uint64     // the peers' output offset
	Bytes              uint64
	Root, Rank, NRanks uint32
	State              device.Ptr // LaunchState
}

// BroadcastPort is the broadcast over port channels (copy engine), one host.
var BroadcastPort = params.DeclareFunc[BroadcastPortArgs]("broadcast_port")
