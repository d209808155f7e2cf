package broadcast

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// broadcast ll16: the root writes its buffer as LL16 packets into every peer's scratch;
// every rank credits every peer instead of meeting it in barriers (broadcast_ll.cu).
// -k auto picks it up to 1 MiB: on 2×H200 read was faster from 2 MiB. MaxBytes is that
// crossover, so that the llSlots slots of the scratch stay small.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "broadcast", Name: "ll16", Number: 0, AnyOffset: true,
		Doc:      "the root writes LL16 packets into every peer's scratch, no barrier; small messages",
		MaxBytes: 2 << 20, MinRanks: 2,
		AutoMin: 0, AutoMax: 1 << 20, AutoPriority: -1, // before read (0)
		New: newBroadcastLL,
	})
}

// BroadcastLL is broadcast's ll16 algorithm set up for a run (exported for the tests in
// collectives/all that run several collectives' algorithms together).
type BroadcastLL struct {
	*algo.Base
	algo.LLScratch
	K params.Kernel[BroadcastLL16Args]
}

func newBroadcastLL(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &BroadcastLL{Base: b}
	if a.K, err = BroadcastLL16.Load(env.GPU); err != nil {
		return nil, err
	}
	// credits, then llSlots slots of the root's packets
	a.LLScratch, err = b.LLScratch(algo.Limit(2<<20, env.MaxBytes), algo.LLSlots, true)
	return a, err
}

// Launch enqueues one call of the collective on s.
func (a *BroadcastLL) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	return a.K.Launch(a.LLCreditGrid(l.RecvBytes), s, &BroadcastLL16Args{
		Chans: a.Chans, Scratch: a.Scratch, SlotBytes: a.SlotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		Bytes: l.RecvBytes, Root: uint32(l.Root), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
