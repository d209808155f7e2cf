package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// allreduce portrsag: port channels only, so any layout of hosts
// (allreduce_portrsag.cu): a reduce-scatter by puts of each peer's share into its
// scratch over the pair's connection (copy engine inside a host, Ethernet or InfiniBand
// between hosts), a reduction of my share on the GPU, and an all-gather by puts of my
// reduced share into every peer's output. Automatic where nothing on one host applies.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allreduce", Name: "portrsag", Number: 5, AnyOffset: true,
		Doc:      "port channels only (any hosts): reduce-scatter by puts, GPU reduction, all-gather by puts",
		MinRanks: 2, Needs: collectives.AnyLayout,
		AutoMin: 0, AutoMax: 1 << 62, AutoPriority: 20,
		New: NewAllreducePortRSAG,
	})
}

type allreducePortRSAG struct {
	*algo.Base
	k                *algo.TypedKernels[AllreducePortRSAGArgs]
	algo.PortScatter            // the reduce-scatter: scratch, channels into the peers' from my input / output
	ag               device.Ptr // port channels from my output to the peers' outputs
}

// NewAllreducePortRSAG sets allreduce's portrsag algorithm up on env.
func NewAllreducePortRSAG(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &allreducePortRSAG{Base: b}
	if a.k, err = algo.LoadTyped(env.GPU, AllreducePortRSAG, nil); err != nil {
		return nil, err
	}
	if a.PortScatter, err = algo.NewPortScatter(b, algo.RoundUp(uint64(env.MaxBytes)/uint64(env.NRanks)+16, 256), env.NRanks, channels.NetworkHostTokens); err != nil {
		return nil, err
	}
	a.ag, err = b.PortChannelSets(1, env.Out, env.Out.Ptrs[env.Rank], env.OutBytes, channels.NetworkHostTokens)
	return a, err
}

func (a *allreducePortRSAG) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	k, err := a.k.Get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.Env
	return k.Launch(device.Dim{Grid: a.Blocks(l.SendBytes/uint64(e.NRanks), 256<<10), Block: 1024}, s, &AllreducePortRSAGArgs{
		RSChans: a.From(l), AGChans: a.ag, Scratch: a.Scratch, SlotBytes: a.SlotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		InOff: l.InOff, OutOff: l.OutOff, Count: uint64(l.Count), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
