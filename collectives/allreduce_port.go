package collectives

import (
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// allreduce port: reduce-scatter and all-gather through port channels, pipelined in pieces
// (kernels/allreduce.cu allreducePort): the copy engines move the data while the SMs reduce
// the pieces that have arrived. For the largest messages.
func init() {
	Register(&Algorithm{
		Collective: "allreduce", Name: "port", Number: 4,
		Doc:      "port channels: copy-engine reduce-scatter + all-gather, pipelined; large messages",
		MinRanks: 2,
		AutoMin:  64<<20 + 1, AutoPriority: 0,
		New: newAllreducePort,
	})
}

// portBlocks is how many blocks (each with its own channels) share the pieces.
const portBlocks = 32

type allreducePort struct {
	*base
	rsFromIn, rsFromOut, ag device.Ptr // [block][peer] port channels
	scratch                 device.Ptr
	slotBytes               uint64
}

func newAllreducePort(env *Env) (Instance, error) {
	b, err := newBase(env)
	if err != nil {
		return nil, err
	}
	a := &allreducePort{base: b, slotBytes: roundUp(uint64(env.MaxBytes)/uint64(env.NRanks)+16, 256)}
	scratch, buf, err := b.shareScratch(uint64(env.NRanks) * a.slotBytes)
	if err != nil {
		return nil, err
	}
	a.scratch = scratch
	me := env.Rank
	if a.rsFromIn, err = b.portChannelSets(portBlocks, buf, env.In.Ptrs[me], env.InBytes); err != nil {
		return nil, err
	}
	if a.rsFromOut, err = b.portChannelSets(portBlocks, buf, env.Out.Ptrs[me], env.OutBytes); err != nil {
		return nil, err
	}
	a.ag, err = b.portChannelSets(portBlocks, env.Out, env.Out.Ptrs[me], env.OutBytes)
	return a, err
}

// pieceBytes gives every block a few pieces to pipeline, within sane bounds.
func pieceBytes(chunk uint64) uint64 {
	p := roundUp(chunk/(portBlocks*4), 16)
	if p < 256<<10 {
		p = 256 << 10
	}
	if p > 16<<20 {
		p = 16 << 20
	}
	return p
}

func (a *allreducePort) Launch(l *LaunchArgs, s device.Stream) error {
	e := a.env
	rs := a.rsFromIn
	if l.InPlace {
		rs = a.rsFromOut
	}
	return a.launch(fmt.Sprintf("allreduce_port_%s_%s", l.Type.Name, l.Op), device.Dim{Grid: portBlocks, Block: 1024}, s,
		uint64(rs), uint64(a.ag), uint64(a.scratch), a.slotBytes, uint64(e.InPtr(l, e.Rank)), uint64(e.OutPtr(l, e.Rank)),
		l.InOff, l.OutOff, uint64(l.Count), pieceBytes(l.SendBytes/uint64(e.NRanks)), uint64(e.Rank), uint64(e.NRanks),
		uint64(a.state))
}
