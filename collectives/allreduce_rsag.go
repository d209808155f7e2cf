package collectives

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// allreduce rsag: read-reduce-scatter then all-gather over memory channels
// (kernels/allreduce.cu allreduceReadReduce): rank c reads chunk c of every peer's input
// over NVLink, reduces, and writes the result into every rank's output.
func init() {
	Register(&Algorithm{
		Collective: "allreduce", Name: "rsag", Number: 3, AnyOffset: true,
		Doc:      "memory channels: read-reduce my chunk from every peer, put the result to all",
		MinRanks: 2,
		AutoMin:  1<<20 + 1, AutoMax: 128 << 20, AutoPriority: 0,
		New: newAllreduceRSAG,
	})
}

type allreduceRSAG struct {
	*base
	peerBuffers
	k *typedKernels[params.AllreduceRSAGArgs]
}

func newAllreduceRSAG(env *Env) (Instance, error) {
	b, err := newBase(env)
	if err != nil {
		return nil, err
	}
	a := &allreduceRSAG{base: b}
	if a.k, err = loadTyped(env.GPU, params.AllreduceRSAG, nil); err != nil {
		return nil, err
	}
	a.peerBuffers, err = b.peerBuffers()
	return a, err
}

func (a *allreduceRSAG) Launch(l *LaunchArgs, s device.Stream) error {
	k, err := a.k.get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.env
	in, inOff := a.inputs(l), l.InOff
	grid := a.blocks(l.SendBytes/uint64(e.NRanks), 16<<10)
	return k.Launch(device.Dim{Grid: grid, Block: 1024}, s, &params.AllreduceRSAGArgs{
		InChans: in, OutChans: a.outChans, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), InOff: inOff, OutOff: l.OutOff,
		Count: uint64(l.Count), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.state,
	})
}
