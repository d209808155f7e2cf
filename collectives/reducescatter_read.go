package collectives

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// reducescatter read: over memory channels, rank r reads block r of every peer's input
// over NVLink and reduces it in rank order into its output (kernels/reducescatter.cu).
func init() {
	Register(&Algorithm{
		Collective: "reducescatter", Name: "read", Number: 1, AnyOffset: true,
		Doc:      "memory channels: read my block from every peer and reduce",
		MinRanks: 2,
		AutoMin:  0, AutoMax: 1 << 62, AutoPriority: 0,
		New: newReduceScatterRead,
	})
}

type reduceScatterRead struct {
	*Base
	PeerBuffers
	k *TypedKernels[params.ReduceScatterReadArgs]
}

func newReduceScatterRead(env *Env) (Instance, error) {
	b, err := NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &reduceScatterRead{Base: b}
	if a.k, err = LoadTyped(env.GPU, params.ReduceScatterRead, nil); err != nil {
		return nil, err
	}
	a.PeerBuffers, err = b.PeerBuffers()
	return a, err
}

func (a *reduceScatterRead) Launch(l *LaunchArgs, s device.Stream) error {
	k, err := a.k.Get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.Env
	chans := a.Inputs(l)
	grid := a.Blocks(l.RecvBytes, 16<<10)
	return k.Launch(device.Dim{Grid: grid, Block: 1024}, s, &params.ReduceScatterReadArgs{
		Chans: chans, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), InOff: l.InOffOf(0),
		Count: l.RecvBytes / uint64(l.Type.Size), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
