package broadcast

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// The LL16-packet kernel of broadcast_ll.cu. Chans reach the peers' scratch
// (MemoryChannelHandle[npeers], in rank order without me); Scratch is mine; SlotBytes is
// one slot of packets.

// BroadcastLL16Args are broadcast_ll16's parameters.
type BroadcastLL16Args struct {
	Chans              device.Ptr
	Scratch            device.Ptr
	SlotBytes          uint64
	In, Out            device.Ptr
	Bytes              uint64
	Root, Rank, NRanks uint32
	State              device.Ptr
}

// BroadcastLL16 is broadcast_ll.cu's LL16-packet kernel.
var BroadcastLL16 = params.DeclareFunc[BroadcastLL16Args]("broadcast_ll16")
