package hier

import (
	"encoding/binary"
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// HierMPSNetwork is why the hierarchical algorithms are refused where ranks share a GPU
// under MPS with the driver's default work queues and pairs talk over a network
// (Layout.MPSNetwork). Every signal along the rail is a token in GPU memory that the
// receiving rank's transport stores with a CUDA stream operation while the kernel waits for
// it; under MPS's default work queues such operations stalled behind the spinning kernels
// (2 ranks as 2 simulated hosts on one H100: allreduce and allgather hier hung in every
// run). With CUDA_DEVICE_MAX_CONNECTIONS set on every rank the layout is not marked.
const HierMPSNetwork = "under MPS with the driver's default work queues its signals, which the receiving rank stores into GPU memory with CUDA stream operations, stall behind the spinning kernels; set CUDA_DEVICE_MAX_CONNECTIONS=8 on every rank (docs/gpu-testing.md)"

// HierGroups is what the hierarchical algorithms (allgather_hier.go, allreduce_hier.go,
// hier.cu) know of the layout: my host and my index on it, the other ranks of my
// host (reached by memory channels) and my rail, the ranks of my index on the other hosts
// (reached by port channels).
type HierGroups struct {
	Host, Local    int
	NHosts, NLocal int
	locals         []int // my host's other ranks, in local order
	rail           []int // my index's ranks on the other hosts, in host order
}

// NewHierGroups reads the groups of rank me from layout l, which must fit HostGroups.
func NewHierGroups(l collectives.Layout, me int) (HierGroups, error) {
	host, local, ranks := l.Local(me)
	if host < 0 {
		return HierGroups{}, fmt.Errorf("hierarchical algorithm: rank %d is not in the layout (%v)", me, l)
	}
	g := HierGroups{Host: host, Local: local, NHosts: len(l.Hosts), NLocal: len(ranks)}
	for h, rs := range l.Hosts {
		if len(rs) != g.NLocal {
			return HierGroups{}, fmt.Errorf("hierarchical algorithm: host %d has %d ranks, host %d has %d (%v)", host, g.NLocal, h, len(rs), l)
		}
		if h != host {
			g.rail = append(g.rail, rs[local])
		}
	}
	for _, r := range ranks {
		if r != me {
			g.locals = append(g.locals, r)
		}
	}
	return g, nil
}

// RankTable is every rank by host and local index, as uint32 at host*nlocal+local.
func RankTable(l collectives.Layout) []byte {
	var b []byte
	for _, rs := range l.Hosts {
		for _, r := range rs {
			b = binary.LittleEndian.AppendUint32(b, uint32(r))
		}
	}
	return b
}

// LocalChannels makes memory channels to the other ranks of my host (0: none).
func LocalChannels(b *algo.Base, g HierGroups, remote *channels.Buffer, local device.Ptr) (device.Ptr, error) {
	if len(g.locals) == 0 {
		return 0, nil
	}
	hs, err := b.Env.Mesh.MemoryChannelsTo(g.locals, remote, local)
	if err != nil {
		return 0, err
	}
	return b.Env.Mesh.Upload(channels.HandlesBytes(hs))
}

// RailChannels makes port channels from local[0, localBytes) to my rail's copies of
// remote (0: no other host).
func RailChannels(b *algo.Base, g HierGroups, remote *channels.Buffer, local device.Ptr, localBytes uint64) (device.Ptr, error) {
	if len(g.rail) == 0 {
		return 0, nil
	}
	hs, err := b.Env.Mesh.PortChannelsTo(g.rail, remote, local, localBytes)
	if err != nil {
		return 0, err
	}
	return b.Env.Mesh.Upload(channels.HandlesBytes(hs))
}
