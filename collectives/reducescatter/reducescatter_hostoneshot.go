package reducescatter

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// reducescatter hostoneshot: allreduce hostoneshot's schedule for a reduce-scatter, for
// jobs whose every pair is connected over a network transport
// (reducescatter_hostoneshot.cu): the kernel copies my input into my host-resident outbox
// and puts each peer's block of it, with a signal, into that peer's host-resident scratch;
// every rank reduces its block. One signal per pair and launch, none of hostput's region
// and credit bookkeeping. Messages to HostOneShotMax; automatic to HostOneShotAutoMax,
// before hostput (a lower AutoPriority).
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "reducescatter", Name: "hostoneshot", Number: 9, AnyOffset: true,
		Doc:      "host-resident buffers (every peer over a network): put each peer's block of my input from host memory into its scratch, every rank reduces its block; small messages",
		MinRanks: 2, Needs: collectives.NoIPC, MaxBytes: HostOneShotMax,
		AutoMin: 0, AutoMax: HostOneShotAutoMax, AutoPriority: 11,
		New: newReduceScatterHostOneShot,
	})
}

// HostOneShotMax is the largest message (the size column: every rank's whole input)
// reducescatter hostoneshot takes: its scratch holds two halves of a slot of it per rank
// (2 x nranks x 1 MiB of pinned host memory at most), as allreduce hostoneshot's.
const HostOneShotMax = algo.HostAllreduceMax

// HostOneShotAutoMax is the largest message -k auto picks reducescatter hostoneshot for.
// On 2×H200 as 2 simulated hosts of one rank, 2026-11-29, -b 64 -e 1M -f 4 -n 20 -w 5,
// -k hostoneshot and -k hostput in turn (docs/performance.md, "reducescatter and
// allgather hostoneshot"), it took less time than hostput from 64 B to 64 KiB in the two
// rounds after a machine's first (64 B 26.4 and 24.7 µs against 31.8 and 30.6, 64 KiB
// 39.0 and 34.9 against 41.5 and 41.3) and more from 256 KiB (97.0 and 92.0 against 95.6
// and 85.4); on another machine less in 16 of the 18 cells to 64 KiB of three rounds.
const HostOneShotAutoMax = 64 << 10

type reduceScatterHostOneShot struct {
	*algo.Base
	k *algo.TypedKernels[ReduceScatterHostOneShotArgs]
	algo.HostScatter
}

func newReduceScatterHostOneShot(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &reduceScatterHostOneShot{Base: b}
	if a.k, err = algo.LoadTyped(env.GPU, ReduceScatterHostOneShot, nil); err != nil {
		return nil, err
	}
	a.HostScatter, err = algo.NewHostScatter(b, algo.Limit(HostOneShotMax, env.MaxBytes))
	return a, err
}

// Launch enqueues one call of the collective on s.
func (a *reduceScatterHostOneShot) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	k, err := a.k.Get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.Env
	return k.Launch(device.Dim{Grid: a.Blocks(l.RecvBytes, 64<<10), Block: 1024}, s, &ReduceScatterHostOneShotArgs{
		Chans: a.Chans, Outbox: a.Outbox, Scratch: a.Scratch, SlotBytes: a.SlotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		Count: l.RecvBytes / uint64(l.Type.Size), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
