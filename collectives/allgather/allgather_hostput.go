package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// allgather hostput: portput's small path through host-resident buffers, for jobs whose
// every pair is connected over a network transport (allgather_hostput.cu). The
// kernel copies my chunk into my host-resident outbox and puts it, with a signal, into
// every peer's host-resident scratch; every rank copies the gathered slots into its
// output. Over Ethernet no CUDA call is then on the proxy's or the receiver's path.
// Automatic at every size it takes (up to 4 MiB gathered) across hosts; its priority is
// above portput's.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allgather", Name: "hostput", Number: 7,
		Doc:      "host-resident buffers (every peer over a network): put of my chunk from host memory into every peer's; small messages",
		MinRanks: 2, Needs: collectives.NoIPC, MaxBytes: algo.HostAllgatherMax,
		AutoMin: 0, AutoMax: algo.HostAllgatherMax, AutoPriority: 12,
		New: NewAllgatherHostput,
	})
}

type allgatherHostput struct {
	*algo.Base
	k params.Kernel[AllgatherHostputArgs]
	algo.HostScatter
}

// NewAllgatherHostput sets allgather's hostput algorithm up on env.
func NewAllgatherHostput(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &allgatherHostput{Base: b}
	if a.k, err = AllgatherHostput.Load(env.GPU); err != nil {
		return nil, err
	}
	// A rank's chunk is at most the gathered size over the rank count.
	a.HostScatter, err = algo.NewHostScatter(b, algo.RoundUp(max(algo.Limit(algo.HostAllgatherMax, env.MaxBytes)/uint64(env.NRanks), 16), 256))
	return a, err
}

func (a *allgatherHostput) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	return a.k.Launch(device.Dim{Grid: a.Blocks(l.RecvBytes, 64<<10), Block: 1024}, s, &AllgatherHostputArgs{
		// in place, my chunk is already in my output (In points there)
		Chans: a.Chans, Outbox: a.Outbox, Scratch: a.Scratch, SlotBytes: a.SlotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		Chunk: l.SendBytes, Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
