package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// allgather get: GPU threads read every peer's chunk over NVLink (allgather.cu
// allgather_get), between a start and an end barrier.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allgather", Name: "get", Number: 2, AnyOffset: true,
		Doc:      "memory channels: SM threads read every peer's chunk",
		MinRanks: 2,
		New:      newAllgatherGet,
	})
}

type allgatherGet struct {
	*algo.Base
	k                            params.Kernel[AllgatherGetArgs]
	inChans, outChans, syncChans device.Ptr
}

func newAllgatherGet(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &allgatherGet{Base: b}
	if a.k, err = AllgatherGet.Load(env.GPU); err != nil {
		return nil, err
	}
	if a.inChans, err = b.MemoryChannels(env.In, env.In.Ptrs[env.Rank]); err != nil {
		return nil, err
	}
	if a.outChans, err = b.MemoryChannels(env.Out, env.Out.Ptrs[env.Rank]); err != nil {
		return nil, err
	}
	a.syncChans, err = b.MemoryChannels(env.Out, env.Out.Ptrs[env.Rank])
	return a, err
}

func (a *allgatherGet) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	chans, peerOff := a.inChans, l.InOff
	if l.InPlace {
		chans, peerOff = a.outChans, l.OutOff
	}
	return a.k.Launch(device.Dim{Grid: a.Blocks(l.SendBytes, 16<<10), Block: 1024}, s, &AllgatherGetArgs{
		InChans: chans, SyncChans: a.syncChans, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), PeerInOff: peerOff,
		Chunk: l.SendBytes, Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), InPlace: algo.B2U(l.InPlace), State: a.State,
	})
}
