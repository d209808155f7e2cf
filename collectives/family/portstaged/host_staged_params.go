package portstaged

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// HostStagedArgs are the parameters of host_staged and of the host_staged_reduce family
// (host_staged.cu).
type HostStagedArgs struct {
	Chans      device.Ptr // PortChannelHandle[npeers]: my host-resident outbox to the network peers' host-resident scratch
	MemChans   device.Ptr // MemoryChannelHandle[npeers] into the Local of the peers over CUDA IPC (0: none in the job)
	Outbox     device.Ptr // two slots of SlotBytes per peer (one for all where every peer gets the same segment)
	Scratch    device.Ptr // two slots of SlotBytes per sender (one where a single rank sends to each)
	Local      device.Ptr // Scratch's layout in GPU memory, for the senders over CUDA IPC (0: none in the job)
	SlotBytes  uint64     // half of each buffer's share per slot (256-byte multiple), the same for every launch
	In, Out    device.Ptr // my input and output at the launch's offsets
	Unit       uint64     // the collective's per-rank bytes (a chunk, or the whole buffer)
	Total      uint64     // alltoallv: the total its pattern divides (else unused)
	Mode       uint32     // the collective (PortStagedMode)
	Root, Rank uint32
	NRanks     uint32
	Depth      uint32     // regions the buffers are cut into, of slots of 2 x SlotBytes / Depth (2 or 8)
	State      device.Ptr // LaunchState
	Parts      device.Ptr // uint32[9]: per eighth of the buffers, the last launch that wrote it; this launch's region
	Ranks      device.Ptr // railput: uint32[2*NRanks], the rank at host*NLocal+local, then each rank's host*NLocal+local (0: hostput)
	NLocal     uint32     // railput: ranks per host
	Progress   device.Ptr // PortChannelHandle[npeers]: a second channel to each network peer, counting a long segment's chunks (0: railput)
}

var (
	// HostStaged runs the copying collectives through host-resident buffers (every peer
	// over a network transport).
	HostStaged = params.DeclareFunc[HostStagedArgs]("host_staged")
	// HostStagedReduce runs reduce-scatter and reduce through host-resident buffers, one
	// kernel per element type and operator.
	HostStagedReduce = params.DeclareFamily[HostStagedArgs]("host_staged_reduce")
)
