package portstaged

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// PortStagedArgs are the parameters of port_staged and of the port_staged_reduce family
// (port_staged.cu).
type PortStagedArgs struct {
	Chans      device.Ptr // PortChannelHandle[npeers]: my input (in place: my output) to the peers' scratch
	SigChans   device.Ptr // the channels from my input, which carry every signal and credit
	Scratch    device.Ptr // slot r (at region + r*slot) receives rank r's segment (one slot when one rank sends)
	BigBytes   uint64     // the big region's size (at 0): the halves follow it
	HalfBytes  uint64     // each half's size: launches whose slots fit one alternate halves
	Slot       uint64     // one slot's bytes this launch (16-byte multiple)
	In, Out    device.Ptr // my input and output at the launch's offsets
	SrcOff     uint64     // my input's offset in the channels' source buffer
	Unit       uint64     // the collective's per-rank bytes (a chunk, or the whole buffer)
	Total      uint64     // alltoallv: the total its pattern divides (else unused)
	Mode       uint32     // the collective (collectives.portStagedMode)
	Root, Rank uint32
	NRanks     uint32
	State      device.Ptr // LaunchState
}

var (
	// PortStaged runs the copying collectives over port channels only (any layout of hosts).
	PortStaged = params.DeclareFunc[PortStagedArgs]("port_staged")
	// PortStagedReduce runs reduce-scatter and reduce over port channels only, one kernel
	// per element type and operator.
	PortStagedReduce = params.DeclareFamily[PortStagedArgs]("port_staged_reduce")
)
