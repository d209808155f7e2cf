package reducescatter

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// reducescatter read: over memory channels, rank r reads block r of every peer's input
// over NVLink and reduces it in rank order into its output (reducescatter.cu).
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "reducescatter", Name: "read", Number: 1, AnyOffset: true,
		Doc:      "memory channels: read my block from every peer and reduce",
		MinRanks: 2,
		AutoMin:  0, AutoMax: 1 << 62, AutoPriority: 0,
		New: newReduceScatterRead,
	})
}

type reduceScatterRead struct {
	*algo.Base
	algo.PeerBuffers
	k *algo.TypedKernels[ReduceScatterReadArgs]
}

func newReduceScatterRead(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &reduceScatterRead{Base: b}
	if a.k, err = algo.LoadTyped(env.GPU, ReduceScatterRead, nil); err != nil {
		return nil, err
	}
	a.PeerBuffers, err = b.PeerBuffers()
	return a, err
}

func (a *reduceScatterRead) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	k, err := a.k.Get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.Env
	chans := a.Inputs(l)
	grid := a.Blocks(l.RecvBytes, 16<<10)
	return k.Launch(device.Dim{Grid: grid, Block: 1024}, s, &ReduceScatterReadArgs{
		Chans: chans, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), InOff: l.InOffOf(0),
		Count: l.RecvBytes / uint64(l.Type.Size), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
