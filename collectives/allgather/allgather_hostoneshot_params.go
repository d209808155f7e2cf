package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// AllgatherHostOneShotArgs are allgather_hostoneshot's parameters
// (allgather_hostoneshot.cu).
type AllgatherHostOneShotArgs struct {
	Chans     device.Ptr // port channels: my host-resident outbox to the peers' host-resident scratch
	Outbox    device.Ptr // two halves of slotBytes: half (launch & 1) holds my chunk while it is sent
	Scratch   device.Ptr // two halves of nranks slots: slot r of half (launch & 1) receives rank r's chunk
	SlotBytes uint64
	In, Out   device.Ptr // my chunk and my output at the launch's offsets
	Chunk     uint64     // bytes each rank contributes
	Rank      uint32
	NRanks    uint32
	State     device.Ptr // LaunchState
}

// AllgatherHostOneShot is the one-shot all-gather of small messages through host-resident
// buffers (every peer over a network transport).
var AllgatherHostOneShot = params.DeclareFunc[AllgatherHostOneShotArgs]("allgather_hostoneshot")
