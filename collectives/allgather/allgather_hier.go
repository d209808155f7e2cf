package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/hier"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// allgather hier: hierarchical, for hosts of several ranks
// (collectives/family/hier/hier.cu): a put-with-signal of my chunk straight into the output
// of each rank of my rail (my local index on every other host) over port channels, while
// the SMs copy my chunk into the outputs of my host's other ranks over NVLink; then the SMs
// forward the rail's chunks to those ranks too. Each chunk crosses the network once per
// host, not once per rank. Automatic across hosts when some host has several ranks
// (Layout.Hierarchical) above the sizes hostput takes (algo.HostStagedAutoMax): on 2×H100
// as 2 hosts of 2, hostput took less time at every size from 64 B to 4 MiB but 256 B
// (docs/algorithms.md#crossovers). It also runs on one host (NVLink only) or with one rank
// per host (port channels only). Every write into a peer's output waits until the peer
// has entered this launch: a signal to each rail peer and a barrier with my host's ranks
// at the start, so a rank a collective ahead never overwrites an output its peer still
// reads.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allgather", Name: "hier", Number: 6,
		Doc:      "hierarchical: port puts to my rank on every other host, NVLink copies inside a host",
		MinRanks: 2, Needs: collectives.HostGroups,
		AutoMin: algo.HostStagedAutoMax + 1, AutoMax: 1 << 62, AutoPriority: 10, AutoOn: collectives.Layout.Hierarchical,
		NotWithMPSNetwork: hier.HierMPSNetwork,
		New:               NewAllgatherHier,
	})
}

type allgatherHier struct {
	*algo.Base
	hier.HierGroups
	k               params.Kernel[hier.AllgatherHierArgs]
	localChans      device.Ptr // memory channels to my host's other ranks' outputs
	fromIn, fromOut device.Ptr // port channels from my input / output to my rail's outputs
	ranks           device.Ptr // rankTable
}

// NewAllgatherHier sets allgather's hier algorithm up on env.
func NewAllgatherHier(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &allgatherHier{Base: b}
	if a.HierGroups, err = hier.NewHierGroups(env.Layout, env.Rank); err != nil {
		return nil, err
	}
	if a.k, err = hier.AllgatherHier.Load(env.GPU); err != nil {
		return nil, err
	}
	me := env.Rank
	if a.localChans, err = hier.LocalChannels(b, a.HierGroups, env.Out, env.Out.Ptrs[me]); err != nil {
		return nil, err
	}
	if a.fromIn, err = hier.RailChannels(b, a.HierGroups, env.Out, env.In.Ptrs[me], env.InBytes); err != nil {
		return nil, err
	}
	if a.fromOut, err = hier.RailChannels(b, a.HierGroups, env.Out, env.Out.Ptrs[me], env.OutBytes); err != nil {
		return nil, err
	}
	a.ranks, err = env.Mesh.Upload(hier.RankTable(env.Layout))
	return a, err
}

func (a *allgatherHier) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	rail := a.fromIn
	if l.InPlace {
		rail = a.fromOut
	}
	return a.k.Launch(device.Dim{Grid: a.Blocks(l.RecvBytes, 1<<20), Block: 1024}, s, &hier.AllgatherHierArgs{
		LocalChans: a.localChans, RailChans: rail, SigChans: a.fromIn, Ranks: a.ranks,
		In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), SrcOff: l.InOff, OutOff: l.OutOff, Chunk: l.SendBytes,
		Rank: uint32(e.Rank), Host: uint32(a.Host), Local: uint32(a.Local), NHosts: uint32(a.NHosts), NLocal: uint32(a.NLocal),
		State: a.State,
	})
}
