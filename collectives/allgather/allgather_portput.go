package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// allgather portput: port channels only, so any layout of hosts (allgather_portput.cu):
// one put-with-signal of my chunk into every peer's scratch over the pair's connection
// (copy engine inside a host, Ethernet or InfiniBand between hosts), then a local copy of
// the gathered slots into the output. Automatic where nothing on one host applies.
// Launches of at most portHalfBytes gathered bytes alternate two halves of the scratch by
// launch parity, so they need not wait for the peer's credit of the previous launch.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allgather", Name: "portput", Number: 5, AnyOffset: true,
		Doc:      "port channels only (any hosts): put-with-signal of my chunk to every peer",
		MinRanks: 2, Needs: collectives.AnyLayout,
		AutoMin: 0, AutoMax: 1 << 62, AutoPriority: 20,
		New: NewAllgatherPortput,
	})
}

type allgatherPortput struct {
	*algo.Base
	k                params.Kernel[AllgatherPortputArgs]
	algo.PortScatter // one slot: the big region, then two halves; fromIn carries every signal
	big, half        uint64
}

// PortHalfBytes is the largest gathered message that goes through the scratch's halves
// (a variable so that tests can mix both kinds of launch at small sizes).
var PortHalfBytes uint64 = 1 << 20

// NewAllgatherPortput sets allgather's portput algorithm up on env.
func NewAllgatherPortput(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &allgatherPortput{Base: b}
	if a.k, err = AllgatherPortput.Load(env.GPU); err != nil {
		return nil, err
	}
	big := algo.RoundUp(uint64(max(env.MaxBytes, 16)), 256)
	a.half = min(big, PortHalfBytes)
	a.PortScatter, err = algo.NewPortScatter(b, big+2*a.half, 1, channels.NetworkHostTokens)
	a.big = big
	return a, err
}

func (a *allgatherPortput) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	return a.k.Launch(device.Dim{Grid: a.Blocks(l.RecvBytes, 1<<20), Block: 1024}, s, &AllgatherPortputArgs{
		// in place, l.InOff is my slot's offset in the output buffer
		Chans: a.From(l), SigChans: a.FromIn, Scratch: a.Scratch, BigBytes: a.big, HalfBytes: a.half, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), SrcOff: l.InOff,
		Chunk: l.SendBytes, Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
