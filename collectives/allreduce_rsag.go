package collectives

import (
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// allreduce rsag: read-reduce-scatter then all-gather over memory channels
// (kernels/allreduce.cu allreduceReadReduce): rank c reads chunk c of every peer's input
// over NVLink, reduces, and writes the result into every rank's output.
func init() {
	Register(&Algorithm{
		Collective: "allreduce", Name: "rsag", Number: 3,
		Doc:      "memory channels: read-reduce my chunk from every peer, put the result to all",
		MinRanks: 2,
		AutoMin:  1<<20 + 1, AutoMax: 128 << 20, AutoPriority: 0,
		New: newAllreduceRSAG,
	})
}

type allreduceRSAG struct {
	*base
	inChans, outChans device.Ptr
}

func newAllreduceRSAG(env *Env) (Instance, error) {
	b, err := newBase(env)
	if err != nil {
		return nil, err
	}
	a := &allreduceRSAG{base: b}
	me := env.Rank
	if a.inChans, err = b.memoryChannels(env.In, env.In.Ptrs[me]); err != nil {
		return nil, err
	}
	a.outChans, err = b.memoryChannels(env.Out, env.Out.Ptrs[me])
	return a, err
}

func (a *allreduceRSAG) Launch(l *LaunchArgs, s device.Stream) error {
	e := a.env
	in, inOff := a.inChans, l.InOff
	if l.InPlace {
		in = a.outChans // the peers' inputs are their outputs
	}
	grid := a.blocks(l.SendBytes/uint64(e.NRanks), 16<<10)
	return a.launch(fmt.Sprintf("allreduce_rsag_%s_%s", l.Type.Name, l.Op), device.Dim{Grid: grid, Block: 1024}, s,
		uint64(in), uint64(a.outChans), uint64(e.InPtr(l, e.Rank)), uint64(e.OutPtr(l, e.Rank)), inOff, l.OutOff,
		uint64(l.Count), uint64(e.Rank), uint64(e.NRanks), uint64(a.state))
}
