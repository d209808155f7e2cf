package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// allreduce port: the copy engine carries the reduce-scatter (through port channels, in a
// few large pieces) while every SM reduces the pieces that have arrived and writes the result
// straight into every rank's output over NVLink (allreduce.cu allreducePort). Copy
// engine and SM traffic share the link. For the largest messages.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allreduce", Name: "port", Number: 4, AnyOffset: true,
		Doc:      "copy-engine reduce-scatter through port channels + SM all-gather, pipelined; large messages",
		MinRanks: 2,
		AutoMin:  128<<20 + 1, AutoPriority: 0,
		New: newAllreducePort,
	})
}

type allreducePort struct {
	*algo.Base
	k                *algo.TypedKernels[AllreducePortArgs]
	algo.PortScatter            // the reduce-scatter: scratch, channels into the peers' from my input / output
	outChans         device.Ptr // memory channels to the peers' outputs
}

func newAllreducePort(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &allreducePort{Base: b}
	if a.k, err = algo.LoadTyped(env.GPU, AllreducePort, nil); err != nil {
		return nil, err
	}
	if a.PortScatter, err = algo.NewPortScatter(b, algo.RoundUp(uint64(env.MaxBytes)/uint64(env.NRanks)+16, 256), env.NRanks); err != nil {
		return nil, err
	}
	a.outChans, err = b.MemoryChannels(env.Out, env.Out.Ptrs[env.Rank])
	return a, err
}

// PieceBytes cuts a rank's chunk into pieces for the copy engine: an eighth of the chunk,
// from 8 to 16 MiB. Every copy costs the copy engine about 3 µs however large (2×H200,
// 128 MiB each way: 354 µs in one copy, 387 in 16 MiB pieces, 408 in 8 MiB pieces), so
// fewer pieces are faster, until the first piece's copy and the last piece's reduction,
// which nothing overlaps, cost more than the copies saved. At 256 MiB, float, two calls:
// 8 pieces of 16 MiB 763–780 µs, 16 of 8 MiB 782–799, 4 of 32 MiB 779–795; smaller first
// and last pieces around 16 MiB ones were slower (774–801). 2 GiB with 64 MiB pieces was
// 3 % slower than with 16 MiB.
func PieceBytes(chunk uint64) uint64 {
	p := algo.RoundUp(chunk/8, 16)
	return min(max(p, 8<<20), 16<<20)
}

func (a *allreducePort) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	k, err := a.k.Get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.Env
	return k.Launch(device.Dim{Grid: e.SMs, Block: 1024}, s, &AllreducePortArgs{
		RSChans: a.From(l), OutChans: a.outChans, Scratch: a.Scratch, SlotBytes: a.SlotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		InOff: l.InOff, OutOff: l.OutOff, Count: uint64(l.Count), PieceBytes: PieceBytes(l.SendBytes / uint64(e.NRanks)),
		Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
