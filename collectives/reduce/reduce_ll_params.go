package reduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// The LL16-packet kernel of reduce_ll.cu. Chans reach the peers' scratch
// (MemoryChannelHandle[npeers], in rank order without me); Scratch is mine; SlotBytes is
// one slot of packets.

// ReduceLL16Args are the parameters of the reduce_ll16 kernels.
type ReduceLL16Args struct {
	Chans              device.Ptr
	Scratch            device.Ptr
	SlotBytes          uint64
	In, Out            device.Ptr
	Count              uint64 // elements of each rank's input
	Root, Rank, NRanks uint32
	State              device.Ptr
}

// ReduceLL16 is reduce_ll.cu's LL16-packet kernel family, one kernel per element type and operator.
var ReduceLL16 = params.DeclareFamily[ReduceLL16Args]("reduce_ll16")
