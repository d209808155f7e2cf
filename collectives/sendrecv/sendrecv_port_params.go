package sendrecv

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// SendRecvPortArgs are sendrecv_port's parameters (sendrecv_port.cu).
type SendRecvPortArgs struct {
	Chans        device.Ptr // PortChannelHandle[npeers]: my input to the peers' outputs (in place: my output to their scratch)
	SyncChans    device.Ptr // MemoryChannelHandle[npeers] for the start barrier
	Scratch      device.Ptr // in place: receives the previous rank's buffer; 0 out of place
	Out          device.Ptr // my output at the launch's offset
	SrcOff       uint64     // my input's offset in the channels' source buffer
	DstOff       uint64     // the next rank's output offset (in place: 0, the scratch's start)
	Bytes        uint64
	Rank, NRanks uint32
	State        device.Ptr // LaunchState
}

// SendRecvPort is the send-receive over port channels (copy engine), one host.
var SendRecvPort = params.DeclareFunc[SendRecvPortArgs]("sendrecv_port")
