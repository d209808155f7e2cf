package hier

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// AllgatherHierArgs are allgather_hier's parameters (hier.cu).
type AllgatherHierArgs struct {
	LocalChans device.Ptr // MemoryChannelHandle[nlocal-1]: to the outputs of the other ranks of my host
	RailChans  device.Ptr // PortChannelHandle[nhosts-1]: my input (in place: my output) to the rail's outputs
	SigChans   device.Ptr // the rail's channels from my input, which carry every signal and credit
	Ranks      device.Ptr // uint32[nhosts*nlocal]: the rank of host g, local index j at g*nlocal+j
	In, Out    device.Ptr // my chunk; my output at the launch's offset
	SrcOff     uint64     // my chunk's offset in the rail channels' source buffer
	OutOff     uint64     // the output's offset in every rank's output buffer
	Chunk      uint64     // bytes each rank contributes
	Rank       uint32
	Host       uint32 // my host's index
	Local      uint32 // my index among my host's ranks
	NHosts     uint32
	NLocal     uint32 // ranks per host
	State      device.Ptr
}

// AllgatherHier is the hierarchical all-gather: port channels along the rail between
// hosts, memory channels inside a host.
var AllgatherHier = params.DeclareFunc[AllgatherHierArgs]("allgather_hier")

// AllreduceHierArgs are the parameters of the allreduce_hier family (hier.cu).
type AllreduceHierArgs struct {
	InChans, OutChans device.Ptr // MemoryChannelHandle[nlocal-1]: to my host's other ranks' inputs (in place: outputs) and outputs
	RSChans, AGChans  device.Ptr // PortChannelHandle[nhosts-1]: my output to the rail's scratch, and to its outputs
	Scratch           device.Ptr // slot g (at g*slotBytes) receives host g's partial of my sub-shard
	SlotBytes         uint64
	In, Out           device.Ptr // my input and output at the launch's offsets
	InOff, OutOff     uint64     // those offsets in every rank's buffers
	Count             uint64     // elements
	Host, Local       uint32
	NHosts, NLocal    uint32
	States            device.Ptr // LaunchState[2]: the launches', the grid barriers'
}

// AllreduceHier is the hierarchical all-reduce, one kernel per element type and operator.
var AllreduceHier = params.DeclareFamily[AllreduceHierArgs]("allreduce_hier")
