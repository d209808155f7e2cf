package collectives

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// broadcast ll16: the root writes its buffer as LL16 packets into every peer's scratch;
// every rank credits every peer instead of meeting it in barriers (kernels/broadcast_ll.cu).
// -k auto picks it up to 1 MiB: on 2×H200 read was faster from 2 MiB. MaxBytes is that
// crossover, so that the llSlots slots of the scratch stay small.
func init() {
	Register(&Algorithm{
		Collective: "broadcast", Name: "ll16", Number: 0, AnyOffset: true,
		Doc:      "the root writes LL16 packets into every peer's scratch, no barrier; small messages",
		MaxBytes: 2 << 20, MinRanks: 2,
		AutoMin: 0, AutoMax: 1 << 20, AutoPriority: -1, // before read (0)
		New: newBroadcastLL,
	})
}

type BroadcastLL struct {
	*Base
	LLScratch
	K params.Kernel[params.BroadcastLL16Args]
}

func newBroadcastLL(env *Env) (Instance, error) {
	b, err := NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &BroadcastLL{Base: b}
	if a.K, err = params.BroadcastLL16.Load(env.GPU); err != nil {
		return nil, err
	}
	// credits, then llSlots slots of the root's packets
	a.LLScratch, err = b.LLScratch(Limit(2<<20, env.MaxBytes), LLSlots, true)
	return a, err
}

func (a *BroadcastLL) Launch(l *LaunchArgs, s device.Stream) error {
	e := a.Env
	return a.K.Launch(a.LLCreditGrid(l.RecvBytes), s, &params.BroadcastLL16Args{
		Chans: a.Chans, Scratch: a.Scratch, SlotBytes: a.SlotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		Bytes: l.RecvBytes, Root: uint32(l.Root), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
