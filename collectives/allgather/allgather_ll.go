package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// allgather ll16: one shot with LL16 packets (allgather.cu allgather_ll16). No
// barrier; data and flag travel together. Best for small messages.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allgather", Name: "ll16", Number: 0, AnyOffset: true,
		Doc:      "LL16 packets into every peer's scratch, one shot; small messages",
		MaxBytes: 32 << 20, MinRanks: 2,
		AutoMin: 0, AutoMax: 1 << 20, AutoPriority: 0,
		New: newAllgatherLL,
	})
}

type allgatherLL struct {
	*algo.Base
	k         params.Kernel[AllgatherLL16Args]
	chans     device.Ptr // to the peers' scratch
	scratch   device.Ptr
	slotBytes uint64 // packets for one rank's largest chunk
}

func newAllgatherLL(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	maxChunk := algo.RoundUp(algo.Limit(32<<20, env.MaxBytes)/uint64(env.NRanks), 16)
	a := &allgatherLL{Base: b, slotBytes: 2 * maxChunk}
	if a.k, err = AllgatherLL16.Load(env.GPU); err != nil {
		return nil, err
	}
	scratch, buf, err := b.ShareScratch(2 * uint64(env.NRanks) * a.slotBytes)
	if err != nil {
		return nil, err
	}
	a.scratch = scratch
	if a.chans, err = b.MemoryChannels(buf, scratch); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *allgatherLL) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	packets := l.SendBytes / 8
	grid := a.Blocks(packets, 512)
	return a.k.Launch(device.Dim{Grid: grid, Block: 512}, s, &AllgatherLL16Args{
		ScratchChans: a.chans, Scratch: a.scratch, SlotBytes: a.slotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		Chunk: l.SendBytes, Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
