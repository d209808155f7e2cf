package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// allreduce portoneshot: port channels only, so any layout of hosts
// (allreduce_portoneshot.cu): a put-with-signal of my whole input into every
// peer's scratch, then every rank reduces all the inputs itself. One one-way trip per
// launch (portrsag takes two) for n-1 times the bytes on the wire: automatic for small
// messages where nothing on one host applies and hier does not (its priority is lower).
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allreduce", Name: "portoneshot", Number: 7, AnyOffset: true,
		Doc:      "port channels only (any hosts): put of my whole input to every peer, every rank reduces; small messages",
		MinRanks: 2, Needs: collectives.AnyLayout, MaxBytes: portOneShotMax,
		// Auto up to 64 KiB: on 2×H200 as 2 simulated hosts it won to 32 KiB (46.6 µs) and
		// lost to portrsag at 128 KiB (205 vs 113 µs; 2026-11-23, docs/performance.md).
		AutoMin: 0, AutoMax: 64 << 10, AutoPriority: 15,
		New: NewAllreducePortOneShot,
	})
}

// portOneShotMax is the largest message portoneshot takes (its scratch holds 2 x nranks of them).
const portOneShotMax = 1 << 20

type allreducePortOneShot struct {
	*algo.Base
	k                *algo.TypedKernels[AllreducePortOneShotArgs]
	algo.PortScatter // two halves of nranks slots
}

// NewAllreducePortOneShot sets allreduce's portoneshot algorithm up on env.
func NewAllreducePortOneShot(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &allreducePortOneShot{Base: b}
	if a.k, err = algo.LoadTyped(env.GPU, AllreducePortOneShot, nil); err != nil {
		return nil, err
	}
	slot := algo.RoundUp(max(algo.Limit(portOneShotMax, env.MaxBytes), 16), 256)
	a.PortScatter, err = algo.NewPortScatter(b, slot, 2*env.NRanks, channels.NetworkHostTokens)
	return a, err
}

func (a *allreducePortOneShot) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	k, err := a.k.Get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.Env
	return k.Launch(device.Dim{Grid: a.Blocks(l.SendBytes, 256<<10), Block: 1024}, s, &AllreducePortOneShotArgs{
		Chans: a.From(l), Scratch: a.Scratch, SlotBytes: a.SlotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		InOff: l.InOff, Count: uint64(l.Count), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
