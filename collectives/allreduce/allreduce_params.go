package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// The kernels of allreduce.cu.

// AllreduceLLArgs are the parameters of the LL-packet all-reduce kernels.
type AllreduceLLArgs struct {
	Chans        device.Ptr // MemoryChannelHandle[npeers] to the peers' scratch
	Scratch      device.Ptr
	SlotBytes    uint64
	In, Out      device.Ptr
	Count        uint64 // elements
	Rank, NRanks uint32
	State        device.Ptr
}

// AllreduceRSAGArgs are allreduce_rsag's parameters.
type AllreduceRSAGArgs struct {
	InChans, OutChans device.Ptr
	In, Out           device.Ptr
	InOff, OutOff     uint64
	Count             uint64
	Rank, NRanks      uint32
	State             device.Ptr
}

// AllreducePortArgs are allreduce_port's parameters.
type AllreducePortArgs struct {
	RSChans, OutChans device.Ptr // port channels (reduce-scatter), memory channels (outputs)
	Scratch           device.Ptr
	SlotBytes         uint64
	In, Out           device.Ptr
	InOff, OutOff     uint64
	Count             uint64
	PieceBytes        uint64
	Rank, NRanks      uint32
	State             device.Ptr
}

// The all-reduce kernel families, one kernel per element type and operator. LL8 exists
// only for the types its 4-byte payload can carry (allreduce_ll.go).
var (
	AllreduceLL8    = params.DeclareFamily[AllreduceLLArgs]("allreduce_ll8")
	AllreduceLL16   = params.DeclareFamily[AllreduceLLArgs]("allreduce_ll16")
	AllreduceLL16x2 = params.DeclareFamily[AllreduceLLArgs]("allreduce_ll16x2")
	AllreduceRSAG   = params.DeclareFamily[AllreduceRSAGArgs]("allreduce_rsag")
	AllreducePort   = params.DeclareFamily[AllreducePortArgs]("allreduce_port")
)
