package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// allgather put: GPU threads write my chunk into every peer's output over NVLink
// (allgather.cu allgather_put).
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allgather", Name: "put", Number: 1, AnyOffset: true,
		Doc:      "memory channels: SM threads put my chunk into every peer's output",
		MinRanks: 2,
		New:      newAllgatherPut,
	})
}

type allgatherPut struct {
	*algo.Base
	k        params.Kernel[AllgatherPutArgs]
	outChans device.Ptr
}

func newAllgatherPut(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &allgatherPut{Base: b}
	if a.k, err = AllgatherPut.Load(env.GPU); err != nil {
		return nil, err
	}
	a.outChans, err = b.MemoryChannels(env.Out, env.Out.Ptrs[env.Rank])
	return a, err
}

func (a *allgatherPut) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	return a.k.Launch(device.Dim{Grid: a.Blocks(l.SendBytes, 16<<10), Block: 1024}, s, &AllgatherPutArgs{
		OutChans: a.outChans, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), OutOff: l.OutOff, Chunk: l.SendBytes,
		Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
