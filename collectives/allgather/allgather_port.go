package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// allgather port: the CPU proxy copies my chunk into every peer's output with the copy
// engine (allgather.cu allgather_port); SMs copy my own chunk meanwhile.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allgather", Name: "port", Number: 3, AnyOffset: true,
		Doc:      "port channels: the proxy drives the copy engine; large messages",
		MinRanks: 2,
		AutoMin:  64<<20 + 1, AutoPriority: 0,
		New: newAllgatherPort,
	})
}

type allgatherPort struct {
	*algo.Base
	k               params.Kernel[AllgatherPortArgs]
	fromIn, fromOut device.Ptr // port channels whose source is my input / output buffer
	syncChans       device.Ptr
}

func newAllgatherPort(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &allgatherPort{Base: b}
	if a.k, err = AllgatherPort.Load(env.GPU); err != nil {
		return nil, err
	}
	me := env.Rank
	if a.fromIn, err = b.PortChannelSets(1, env.Out, env.In.Ptrs[me], env.InBytes); err != nil {
		return nil, err
	}
	if a.fromOut, err = b.PortChannelSets(1, env.Out, env.Out.Ptrs[me], env.OutBytes); err != nil {
		return nil, err
	}
	a.syncChans, err = b.MemoryChannels(env.Out, env.Out.Ptrs[me])
	return a, err
}

func (a *allgatherPort) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	chans, grid := a.fromIn, 1+a.Blocks(l.SendBytes, 1<<20)
	if l.InPlace {
		chans, grid = a.fromOut, 1
	}
	if grid > e.SMs {
		grid = e.SMs
	}
	return a.k.Launch(device.Dim{Grid: grid, Block: 1024}, s, &AllgatherPortArgs{
		PortChans: chans, SyncChans: a.syncChans, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), SrcOff: l.InOff,
		OutOff: l.OutOff, Chunk: l.SendBytes, Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
