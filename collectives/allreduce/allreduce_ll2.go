package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// allreduce ll16x2: two steps with LL16 packets (allreduce.cu allreduceTwoStep):
// a reduce-scatter then an all-gather, both as packets. It moves 2(n-1)/n of the buffer per
// rank instead of the one shot's n-1 times, so it wins for medium messages on more ranks.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allreduce", Name: "ll16x2", Number: 2, AnyOffset: true,
		Doc:      "two steps (reduce-scatter, all-gather) with LL16 packets; medium messages on many ranks",
		MaxBytes: 32 << 20, MinRanks: 2,
		New: newAllreduceLL2,
	})
}

type allreduceLL2 struct {
	*algo.Base
	k         *algo.TypedKernels[AllreduceLLArgs]
	chans     device.Ptr
	scratch   device.Ptr
	slotBytes uint64
}

func newAllreduceLL2(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	n := uint64(env.NRanks)
	maxChunk := algo.RoundUp(algo.Limit(32<<20, env.MaxBytes)/n+8, 8)
	a := &allreduceLL2{Base: b, slotBytes: algo.RoundUp(2*maxChunk, 256)}
	if a.k, err = algo.LoadTyped(env.GPU, AllreduceLL16x2, nil); err != nil {
		return nil, err
	}
	scratch, buf, err := b.ShareScratch(2 * 2 * n * a.slotBytes)
	if err != nil {
		return nil, err
	}
	a.scratch = scratch
	a.chans, err = b.MemoryChannels(buf, scratch)
	return a, err
}

func (a *allreduceLL2) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	k, err := a.k.Get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.Env
	units := (l.SendBytes/uint64(e.NRanks) + 7) / 8
	return k.Launch(device.Dim{Grid: a.Blocks(units, 512), Block: 512}, s, &AllreduceLLArgs{
		Chans: a.chans, Scratch: a.scratch, SlotBytes: a.slotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		Count: uint64(l.Count), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
