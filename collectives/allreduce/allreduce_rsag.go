package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// allreduce rsag: read-reduce-scatter then all-gather over memory channels
// (allreduce.cu allreduceReadReduce): rank c reads chunk c of every peer's input
// over NVLink, reduces, and writes the result into every rank's output.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allreduce", Name: "rsag", Number: 3, AnyOffset: true,
		Doc:      "memory channels: read-reduce my chunk from every peer, put the result to all",
		MinRanks: 2,
		AutoMin:  1<<20 + 1, AutoMax: 128 << 20, AutoPriority: 0,
		New: newAllreduceRSAG,
	})
}

type allreduceRSAG struct {
	*algo.Base
	algo.PeerBuffers
	k *algo.TypedKernels[AllreduceRSAGArgs]
}

func newAllreduceRSAG(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &allreduceRSAG{Base: b}
	if a.k, err = algo.LoadTyped(env.GPU, AllreduceRSAG, nil); err != nil {
		return nil, err
	}
	a.PeerBuffers, err = b.PeerBuffers()
	return a, err
}

func (a *allreduceRSAG) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	k, err := a.k.Get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.Env
	in, inOff := a.Inputs(l), l.InOff
	grid := a.Blocks(l.SendBytes/uint64(e.NRanks), 16<<10)
	return k.Launch(device.Dim{Grid: grid, Block: 1024}, s, &AllreduceRSAGArgs{
		InChans: in, OutChans: a.OutChans, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), InOff: inOff, OutOff: l.OutOff,
		Count: uint64(l.Count), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
