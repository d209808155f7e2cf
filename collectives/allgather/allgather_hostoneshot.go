package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// allgather hostoneshot: allreduce hostoneshot's schedule for an all-gather, for jobs
// whose every pair is connected over a network transport (allgather_hostoneshot.cu): the
// kernel copies my chunk into my host-resident outbox and puts it, with a signal, into
// every peer's host-resident scratch; every rank copies the chunks into its output. One
// signal per pair and launch, none of hostput's region and credit bookkeeping. Messages
// (gathered) to HostOneShotMax; automatic to HostOneShotAutoMax, before hostput (a lower
// AutoPriority).
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allgather", Name: "hostoneshot", Number: 9, AnyOffset: true,
		Doc:      "host-resident buffers (every peer over a network): put of my chunk from host memory into every peer's scratch, every rank copies the chunks out; small messages",
		MinRanks: 2, Needs: collectives.NoIPC, MaxBytes: HostOneShotMax,
		AutoMin: 0, AutoMax: HostOneShotAutoMax, AutoPriority: 11,
		New: newAllgatherHostOneShot,
	})
}

// HostOneShotMax is the largest message (the size column: every rank's chunk gathered)
// allgather hostoneshot takes: its scratch holds two halves of a slot of it per rank (2 x
// nranks x 1 MiB of pinned host memory at most), as allreduce hostoneshot's.
const HostOneShotMax = algo.HostAllreduceMax

// HostOneShotAutoMax is the largest message -k auto picks allgather hostoneshot for. On
// 2×H200 as 2 simulated hosts of one rank, 2026-11-29, -b 64 -e 1M -f 4 -n 20 -w 5, -k
// hostoneshot and -k hostput in turn, three rounds (docs/performance.md, "reducescatter
// and allgather hostoneshot"), it took less time than hostput at every size to 64 KiB in
// every round (64 B 24.1-25.8 µs against 25.9-28.0, 64 KiB 37.2-37.5 against 39.2-41.3),
// and less at 256 KiB and 1 MiB in two rounds of three only.
const HostOneShotAutoMax = 64 << 10

type allgatherHostOneShot struct {
	*algo.Base
	k params.Kernel[AllgatherHostOneShotArgs]
	algo.HostScatter
}

func newAllgatherHostOneShot(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &allgatherHostOneShot{Base: b}
	if a.k, err = AllgatherHostOneShot.Load(env.GPU); err != nil {
		return nil, err
	}
	// a slot holds a rank's chunk: the gathered size over the rank count
	chunk := algo.Limit(HostOneShotMax, env.MaxBytes) / uint64(env.NRanks)
	a.HostScatter, err = algo.NewHostScatter(b, chunk)
	return a, err
}

// Launch enqueues one call of the collective on s.
func (a *allgatherHostOneShot) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	return a.k.Launch(device.Dim{Grid: a.Blocks(l.RecvBytes, 64<<10), Block: 1024}, s, &AllgatherHostOneShotArgs{
		Chans: a.Chans, Outbox: a.Outbox, Scratch: a.Scratch, SlotBytes: a.SlotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		Chunk: l.SendBytes, Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
