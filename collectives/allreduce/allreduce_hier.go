package allreduce

import (
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/hier"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// allreduce hier: hierarchical, for hosts of several ranks
// (collectives/family/hier/hier.cu): a reduce-scatter inside each host by SM reads over
// NVLink (local index j reduces shard j), an all-reduce of my shard along my rail (my local
// index on every other host) over port channels (reduce-scatter by puts into the rail's
// scratch, GPU reduction, all-gather by puts), then an all-gather inside the host by SM
// writes over NVLink. Each rank sends 2/nlocal of the message over the network instead of
// 2. Automatic across hosts when some host has several ranks (Layout.Hierarchical); it also
// runs on one host (NVLink only) or with one rank per host (port channels only).
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allreduce", Name: "hier", Number: 6,
		Doc:      "hierarchical: NVLink reduce-scatter in a host, port-channel all-reduce of my shard across hosts, NVLink all-gather",
		MinRanks: 2, Needs: collectives.HostGroups,
		AutoMin: 0, AutoMax: 1 << 62, AutoPriority: 10, AutoOn: collectives.Layout.Hierarchical,
		NotWithMPSNetwork: hier.HierMPSNetwork,
		New:               NewAllreduceHier,
	})
}

type allreduceHier struct {
	*algo.Base // state: LaunchState[2], the launches' and the grid barriers'
	hier.HierGroups
	k                 *algo.TypedKernels[hier.AllreduceHierArgs]
	inChans, outChans device.Ptr // memory channels to my host's other ranks' inputs and outputs
	scratch           device.Ptr // one slot per host
	slotBytes         uint64
	rs, ag            device.Ptr // port channels from my output to my rail's scratch and outputs
}

// NewAllreduceHier sets allreduce's hier algorithm up on env.
func NewAllreduceHier(env *collectives.Env) (collectives.Instance, error) {
	states, err := env.Mesh.Alloc(2 * uint64(unsafe.Sizeof(channels.LaunchState{})))
	if err != nil {
		return nil, err
	}
	b := &algo.Base{Env: env, State: states}
	a := &allreduceHier{Base: b}
	if a.HierGroups, err = hier.NewHierGroups(env.Layout, env.Rank); err != nil {
		return nil, err
	}
	if a.k, err = algo.LoadTyped(env.GPU, hier.AllreduceHier, nil); err != nil {
		return nil, err
	}
	me := env.Rank
	if a.inChans, err = hier.LocalChannels(b, a.HierGroups, env.In, env.In.Ptrs[me]); err != nil {
		return nil, err
	}
	if a.outChans, err = hier.LocalChannels(b, a.HierGroups, env.Out, env.Out.Ptrs[me]); err != nil {
		return nil, err
	}
	// a sub-shard is at most 16 bytes over an even share at each of the two splits
	a.slotBytes = algo.RoundUp(uint64(env.MaxBytes)/uint64(a.NLocal*a.NHosts)+32, 256)
	scratch, buf, err := b.ShareScratch(uint64(a.NHosts) * a.slotBytes)
	if err != nil {
		return nil, err
	}
	a.scratch = scratch
	if a.rs, err = hier.RailChannels(b, a.HierGroups, buf, env.Out.Ptrs[me], env.OutBytes); err != nil {
		return nil, err
	}
	a.ag, err = hier.RailChannels(b, a.HierGroups, env.Out, env.Out.Ptrs[me], env.OutBytes)
	return a, err
}

func (a *allreduceHier) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	k, err := a.k.Get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.Env
	in := a.inChans
	if l.InPlace {
		in = a.outChans
	}
	return k.Launch(device.Dim{Grid: a.Blocks(l.SendBytes/uint64(a.NLocal), 64<<10), Block: 1024}, s, &hier.AllreduceHierArgs{
		InChans: in, OutChans: a.outChans, RSChans: a.rs, AGChans: a.ag, Scratch: a.scratch, SlotBytes: a.slotBytes,
		In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), InOff: l.InOff, OutOff: l.OutOff, Count: uint64(l.Count),
		Host: uint32(a.Host), Local: uint32(a.Local), NHosts: uint32(a.NHosts), NLocal: uint32(a.NLocal), States: a.State,
	})
}
