package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// AllgatherPortputArgs are allgather_portput's parameters (allgather_portput.cu).
type AllgatherPortputArgs struct {
	Chans        device.Ptr // PortChannelHandle[npeers]: my input (in place: my output) to the peers' scratch
	SigChans     device.Ptr // the channels from my input, which carry every signal and credit
	Scratch      device.Ptr // slot r (at region + r*chunk) receives rank r's chunk
	BigBytes     uint64     // the big region's size (at 0): the halves follow it
	HalfBytes    uint64     // each half's size: launches of at most this many gathered bytes alternate halves
	In, Out      device.Ptr // my chunk; my output at the launch's offset
	SrcOff       uint64     // my chunk's offset in the channels' source buffer
	Chunk        uint64     // bytes each rank contributes
	Rank, NRanks uint32
	State        device.Ptr // LaunchState
}

// AllgatherPortput is the all-gather over port channels only (any layout of hosts).
var AllgatherPortput = params.DeclareFunc[AllgatherPortputArgs]("allgather_portput")
