package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// allreduce hostoneshot: portoneshot through host-resident buffers, for jobs whose every
// pair is connected over a network transport (allreduce_hostoneshot.cu). The
// kernel copies my input into my host-resident outbox and puts it, with a signal, into
// every peer's host-resident scratch; every rank reduces all the inputs itself. Over
// Ethernet no CUDA call is then on the proxy's or the receiver's path (no copy out of GPU
// memory, none into it), as in NCCL's socket transport. Automatic at every size it takes
// (up to 1 MiB) across hosts; its priority is above portoneshot's.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allreduce", Name: "hostoneshot", Number: 8,
		Doc:      "host-resident buffers (every peer over a network): put of my input from host memory into every peer's, every rank reduces; small messages",
		MinRanks: 2, Needs: collectives.NoIPC, MaxBytes: algo.HostAllreduceMax,
		AutoMin: 0, AutoMax: algo.HostAllreduceMax, AutoPriority: 12,
		New: NewAllreduceHostOneShot,
	})
}

type allreduceHostOneShot struct {
	*algo.Base
	k *algo.TypedKernels[AllreduceHostOneShotArgs]
	algo.HostScatter
}

// NewAllreduceHostOneShot sets allreduce's hostoneshot algorithm up on env.
func NewAllreduceHostOneShot(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &allreduceHostOneShot{Base: b}
	if a.k, err = algo.LoadTyped(env.GPU, AllreduceHostOneShot, nil); err != nil {
		return nil, err
	}
	a.HostScatter, err = algo.NewHostScatter(b, algo.Limit(algo.HostAllreduceMax, env.MaxBytes))
	return a, err
}

func (a *allreduceHostOneShot) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	k, err := a.k.Get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.Env
	return k.Launch(device.Dim{Grid: a.Blocks(l.SendBytes, 64<<10), Block: 1024}, s, &AllreduceHostOneShotArgs{
		Chans: a.Chans, Outbox: a.Outbox, Scratch: a.Scratch, SlotBytes: a.SlotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		Count: uint64(l.Count), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
