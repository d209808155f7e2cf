package alltoallv

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// alltoallv read: over memory channels, every rank reads its segment of every peer's
// input over NVLink into its output; in place, of a copy of the peer's input in its
// scratch (alltoallv.cu).
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "alltoallv", Name: "read", Number: 1, AnyOffset: true,
		Doc:      "memory channels: every rank reads its segment of each rank's buffer (in place: of a copy in scratch)",
		MinRanks: 2,
		AutoMin:  0, AutoMax: 1 << 62, AutoPriority: 0,
		New: newAlltoallvRead,
	})
}

// AlltoallvReadInstance is alltoallv's read algorithm set up for a run (exported for the
// tests in collectives/all that run several collectives' algorithms together).
type AlltoallvReadInstance struct {
	*algo.Base
	K            params.Kernel[AlltoallvArgs]
	InChans      device.Ptr // to the peers' inputs
	Scratch      device.Ptr // a copy of my input, in place
	ScratchChans device.Ptr // to the peers' scratch
}

func newAlltoallvRead(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &AlltoallvReadInstance{Base: b}
	if a.K, err = AlltoallvRead.Load(env.GPU); err != nil {
		return nil, err
	}
	if a.InChans, err = b.MemoryChannels(env.In, env.In.Ptrs[env.Rank]); err != nil {
		return nil, err
	}
	p, buf, err := b.ShareScratch(algo.RoundUp(uint64(max(env.MaxBytes, 16)), 256))
	if err != nil {
		return nil, err
	}
	a.Scratch = p
	a.ScratchChans, err = b.MemoryChannels(buf, p)
	return a, err
}

// Launch enqueues one call of the collective on s.
func (a *AlltoallvReadInstance) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	chans, srcOff := a.InChans, l.InOff
	if l.InPlace {
		chans, srcOff = a.ScratchChans, 0
	}
	return a.K.Launch(device.Dim{Grid: a.Blocks(l.RecvBytes, 16<<10), Block: 1024}, s, &AlltoallvArgs{
		Chans: chans, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), Scratch: a.Scratch, SrcOff: srcOff,
		Total: uint64(algo.AlltoallvTotal(l, e.NRanks)), SendBytes: l.SendBytes, Rank: uint32(e.Rank), NRanks: uint32(e.NRanks),
		InPlace: algo.B2U(l.InPlace), State: a.State,
	})
}
