package sendrecv

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// The LL16-packet kernel of sendrecv_ll.cu. Chans reach the peers' scratch
// (MemoryChannelHandle[npeers], in rank order without me); Scratch is mine; SlotBytes is
// one slot of packets.

// SendRecvLL16Args are sendrecv_ll16's parameters.
type SendRecvLL16Args struct {
	Chans        device.Ptr
	Scratch      device.Ptr
	SlotBytes    uint64
	In, Out      device.Ptr // in place, the same buffer
	Bytes        uint64     // bytes each rank sends (and receives)
	Rank, NRanks uint32
	State        device.Ptr
}

// SendRecvLL16 is sendrecv_ll.cu's LL16-packet kernel.
var SendRecvLL16 = params.DeclareFunc[SendRecvLL16Args]("sendrecv_ll16")
