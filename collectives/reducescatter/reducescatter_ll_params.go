package reducescatter

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// The LL16-packet kernel of reducescatter_ll.cu. Chans reach the peers' scratch
// (MemoryChannelHandle[npeers], in rank order without me); Scratch is mine; SlotBytes is
// one slot of packets.

// ReduceScatterLL16Args are the parameters of the reducescatter_ll16 kernels.
type ReduceScatterLL16Args struct {
	Chans        device.Ptr
	Scratch      device.Ptr
	SlotBytes    uint64
	In, Out      device.Ptr
	Count        uint64 // elements of each rank's output
	Rank, NRanks uint32
	State        device.Ptr
}

// ReduceScatterLL16 is reducescatter_ll.cu's LL16-packet kernel family, one kernel per element type and operator.
var ReduceScatterLL16 = params.DeclareFamily[ReduceScatterLL16Args]("reducescatter_ll16")
