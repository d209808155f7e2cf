package reduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// reduce ll16: every rank but the root writes its buffer as LL16 packets into the root's
// scratch, and the root reduces them in rank order; every rank credits every peer instead
// of meeting it in barriers (reduce_ll.cu). Every type and op. -k auto picks it up
// to 1 MiB: on 2×H200 read was faster from 2 MiB. MaxBytes is that crossover, so that the
// llSlots slots of nranks buffers stay small.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "reduce", Name: "ll16", Number: 0, AnyOffset: true,
		Doc:      "LL16 packets into the root's scratch, reduced there, no barrier; small messages",
		MaxBytes: 2 << 20, MinRanks: 2,
		AutoMin: 0, AutoMax: 1 << 20, AutoPriority: -1, // before read (0)
		New: newReduceLL,
	})
}

// ReduceLL is reduce's ll16 algorithm set up for a run (exported for the tests in
// collectives/all that run several collectives' algorithms together).
type ReduceLL struct {
	*algo.Base
	algo.LLScratch
	K *algo.TypedKernels[ReduceLL16Args]
}

func newReduceLL(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &ReduceLL{Base: b}
	if a.K, err = algo.LoadTyped(env.GPU, ReduceLL16, nil); err != nil {
		return nil, err
	}
	// credits, then llSlots slots of a buffer per rank
	a.LLScratch, err = b.LLScratch(algo.Limit(2<<20, env.MaxBytes), algo.LLSlots*uint64(env.NRanks), true)
	return a, err
}

// Launch enqueues one call of the collective on s.
func (a *ReduceLL) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	k, err := a.K.Get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.Env
	return k.Launch(a.LLCreditGrid(l.RecvBytes), s, &ReduceLL16Args{
		Chans: a.Chans, Scratch: a.Scratch, SlotBytes: a.SlotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		Count: l.RecvBytes / uint64(l.Type.Size), Root: uint32(l.Root), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks),
		State: a.State,
	})
}
