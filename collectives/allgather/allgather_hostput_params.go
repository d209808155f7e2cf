package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// AllgatherHostputArgs are allgather_hostput's parameters (allgather_hostput.cu).
type AllgatherHostputArgs struct {
	Chans        device.Ptr // PortChannelHandle[npeers]: my host-resident outbox to the peers' host-resident scratch
	Outbox       device.Ptr // two halves of slotBytes: half (launch & 1) holds my chunk while it is sent
	Scratch      device.Ptr // two halves of nranks slots: slot r of half (launch & 1) receives rank r's chunk
	SlotBytes    uint64
	In, Out      device.Ptr // my chunk; my output at the launch's offset
	Chunk        uint64     // bytes each rank contributes
	Rank, NRanks uint32
	State        device.Ptr // LaunchState
}

// AllgatherHostput is the all-gather of small messages through host-resident buffers
// (every peer over a network transport).
var AllgatherHostput = params.DeclareFunc[AllgatherHostputArgs]("allgather_hostput")
