package params

import "github.com/mscclpp-bench/mscclpp-bench/internal/device"

// The LL16-packet kernels of alltoall_ll.cu, sendrecv_ll.cu, broadcast_ll.cu, reduce_ll.cu
// and reducescatter_ll.cu. Chans reach the peers' scratch (MemoryChannelHandle[npeers], in
// rank order without me); Scratch is mine; SlotBytes is one slot of packets.

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

// The LL16 kernels; reduce and reduce-scatter are families, one kernel per element type
// and operator.
var (
	AlltoallLL16      = declareFunc[AlltoallLL16Args]("alltoall_ll16")
	SendRecvLL16      = declareFunc[SendRecvLL16Args]("sendrecv_ll16")
	BroadcastLL16     = declareFunc[BroadcastLL16Args]("broadcast_ll16")
	ReduceLL16        = declareFamily[ReduceLL16Args]("reduce_ll16")
	ReduceScatterLL16 = declareFamily[ReduceScatterLL16Args]("reducescatter_ll16")
)
