package broadcast

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// BroadcastReadArgs are the parameters of broadcast_read (broadcast.cu).
type BroadcastReadArgs struct {
	Chans              device.Ptr // MemoryChannelHandle[npeers] to the peers' inputs
	In, Out            device.Ptr
	RootInOff          uint64 // the root's input's offset in the buffer the channels reach
	Bytes              uint64
	Root, Rank, NRanks uint32
	State              device.Ptr // LaunchState
}

// BroadcastRead is the kernel of broadcast's read algorithm.
var BroadcastRead = params.DeclareFunc[BroadcastReadArgs]("broadcast_read")
