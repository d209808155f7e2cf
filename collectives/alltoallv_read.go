package collectives

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// alltoallv read: over memory channels, every rank reads its segment of every peer's
// input over NVLink into its output; in place, of a copy of the peer's input in its
// scratch (kernels/alltoallv.cu).
func init() {
	Register(&Algorithm{
		Collective: "alltoallv", Name: "read", Number: 1, AnyOffset: true,
		Doc:      "memory channels: every rank reads its segment of each rank's buffer (in place: of a copy in scratch)",
		MinRanks: 2,
		AutoMin:  0, AutoMax: 1 << 62, AutoPriority: 0,
		New: newAlltoallvRead,
	})
}

type alltoallvRead struct {
	*base
	k            params.Kernel[params.AlltoallvArgs]
	inChans      device.Ptr // to the peers' inputs
	scratch      device.Ptr // a copy of my input, in place
	scratchChans device.Ptr // to the peers' scratch
}

func newAlltoallvRead(env *Env) (Instance, error) {
	b, err := newBase(env)
	if err != nil {
		return nil, err
	}
	a := &alltoallvRead{base: b}
	if a.k, err = params.AlltoallvRead.Load(env.GPU); err != nil {
		return nil, err
	}
	if a.inChans, err = b.memoryChannels(env.In, env.In.Ptrs[env.Rank]); err != nil {
		return nil, err
	}
	p, buf, err := b.shareScratch(roundUp(uint64(max(env.MaxBytes, 16)), 256))
	if err != nil {
		return nil, err
	}
	a.scratch = p
	a.scratchChans, err = b.memoryChannels(buf, p)
	return a, err
}

func (a *alltoallvRead) Launch(l *LaunchArgs, s device.Stream) error {
	e := a.env
	chans, srcOff := a.inChans, l.InOff
	if l.InPlace {
		chans, srcOff = a.scratchChans, 0
	}
	return a.k.Launch(device.Dim{Grid: a.blocks(l.RecvBytes, 16<<10), Block: 1024}, s, &params.AlltoallvArgs{
		Chans: chans, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), Scratch: a.scratch, SrcOff: srcOff,
		Total: uint64(alltoallvTotal(l, e.NRanks)), SendBytes: l.SendBytes, Rank: uint32(e.Rank), NRanks: uint32(e.NRanks),
		InPlace: b2u(l.InPlace), State: a.state,
	})
}
