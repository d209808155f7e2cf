package alltoallv

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// AlltoallvArgs are alltoallv_read's parameters (alltoallv.cu).
type AlltoallvArgs struct {
	Chans        device.Ptr // MemoryChannelHandle[npeers] to the peers' inputs (in place: scratch)
	In, Out      device.Ptr // in place, the same buffer
	Scratch      device.Ptr // my scratch, at least SendBytes (read by the peers in place)
	SrcOff       uint64     // the peers' inputs' offset in the buffers Chans reach
	Total        uint64     // the pattern's total bytes (nranks chunks of alltoall's)
	SendBytes    uint64     // my input's bytes
	Rank, NRanks uint32
	InPlace      uint32
	State        device.Ptr // LaunchState
}

// AlltoallvRead is alltoallv by SM reads of every peer's segment (in place, from a copy of
// its input in scratch).
var AlltoallvRead = params.DeclareFunc[AlltoallvArgs]("alltoallv_read")
