package reducescatter

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// reducescatter ll16: block c of every rank's buffer goes as LL16 packets into rank c's
// scratch, where it is reduced in rank order, with no barrier
// (reducescatter_ll.cu). Every type and op. -k auto picks it up to 2 MiB: on
// 2×H200 read was faster from 4 MiB.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "reducescatter", Name: "ll16", Number: 0, AnyOffset: true,
		Doc:      "LL16 packets of each block into its rank's scratch, reduced there, no barrier; small messages",
		MaxBytes: 32 << 20, MinRanks: 2,
		AutoMin: 0, AutoMax: 2 << 20, AutoPriority: -1, // before read (0)
		New: newReduceScatterLL,
	})
}

// ReduceScatterLL is reducescatter's ll16 algorithm set up for a run (exported for the
// tests in collectives/all that run several collectives' algorithms together).
type ReduceScatterLL struct {
	*algo.Base
	algo.LLScratch
	K *algo.TypedKernels[ReduceScatterLL16Args]
}

func newReduceScatterLL(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &ReduceScatterLL{Base: b}
	if a.K, err = algo.LoadTyped(env.GPU, ReduceScatterLL16, nil); err != nil {
		return nil, err
	}
	// two halves of a slot per rank, each for one rank's largest block
	n := uint64(env.NRanks)
	a.LLScratch, err = b.LLScratch(algo.Limit(32<<20, env.MaxBytes)/n, 2*n, false)
	return a, err
}

// Launch enqueues one call of the collective on s.
func (a *ReduceScatterLL) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	k, err := a.K.Get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.Env
	return k.Launch(a.LLGrid(l.RecvBytes), s, &ReduceScatterLL16Args{
		Chans: a.Chans, Scratch: a.Scratch, SlotBytes: a.SlotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		Count: l.RecvBytes / uint64(l.Type.Size), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
