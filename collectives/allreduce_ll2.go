package collectives

import (
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// allreduce ll16x2: two steps with LL16 packets (kernels/allreduce.cu allreduceTwoStep):
// a reduce-scatter then an all-gather, both as packets. It moves 2(n-1)/n of the buffer per
// rank instead of the one shot's n-1 times, so it wins for medium messages on more ranks.
func init() {
	Register(&Algorithm{
		Collective: "allreduce", Name: "ll16x2", Number: 2,
		Doc:      "two steps (reduce-scatter, all-gather) with LL16 packets; medium messages on many ranks",
		MaxBytes: 32 << 20, MinRanks: 2,
		New: newAllreduceLL2,
	})
}

type allreduceLL2 struct {
	*base
	chans     device.Ptr
	scratch   device.Ptr
	slotBytes uint64
}

func newAllreduceLL2(env *Env) (Instance, error) {
	b, err := newBase(env)
	if err != nil {
		return nil, err
	}
	n := uint64(env.NRanks)
	maxChunk := roundUp(limit(32<<20, env.MaxBytes)/n+8, 8)
	a := &allreduceLL2{base: b, slotBytes: roundUp(2*maxChunk, 256)}
	scratch, buf, err := b.shareScratch(2 * 2 * n * a.slotBytes)
	if err != nil {
		return nil, err
	}
	a.scratch = scratch
	a.chans, err = b.memoryChannels(buf, scratch)
	return a, err
}

func (a *allreduceLL2) Launch(l *LaunchArgs, s device.Stream) error {
	e := a.env
	units := (l.SendBytes/uint64(e.NRanks) + 7) / 8
	return a.launch(fmt.Sprintf("allreduce_ll16x2_%s_%s", l.Type.Name, l.Op), device.Dim{Grid: a.blocks(units, 512), Block: 512}, s,
		uint64(a.chans), uint64(a.scratch), a.slotBytes, uint64(e.InPtr(l, e.Rank)), uint64(e.OutPtr(l, e.Rank)),
		uint64(l.Count), uint64(e.Rank), uint64(e.NRanks), uint64(a.state))
}
