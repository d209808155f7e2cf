package alltoall

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// The LL16-packet kernel of alltoall_ll.cu. Chans reach the peers' scratch
// (MemoryChannelHandle[npeers], in rank order without me); Scratch is mine; SlotBytes is
// one slot of packets.

// AlltoallLL16Args are alltoall_ll16's parameters.
type AlltoallLL16Args struct {
	Chans        device.Ptr
	Scratch      device.Ptr
	SlotBytes    uint64
	In, Out      device.Ptr // in place, the same buffer
	Chunk        uint64     // bytes each rank sends to each rank
	Rank, NRanks uint32
	State        device.Ptr // LaunchState
}

// AlltoallLL16 is alltoall_ll.cu's LL16-packet kernel.
var AlltoallLL16 = params.DeclareFunc[AlltoallLL16Args]("alltoall_ll16")
