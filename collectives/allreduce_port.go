package collectives

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// allreduce port: the copy engine carries the reduce-scatter (through port channels, in a
// few large pieces) while every SM reduces the pieces that have arrived and writes the result
// straight into every rank's output over NVLink (kernels/allreduce.cu allreducePort). Copy
// engine and SM traffic share the link. For the largest messages.
func init() {
	Register(&Algorithm{
		Collective: "allreduce", Name: "port", Number: 4,
		Doc:      "copy-engine reduce-scatter through port channels + SM all-gather, pipelined; large messages",
		MinRanks: 2,
		AutoMin:  128<<20 + 1, AutoPriority: 0,
		New: newAllreducePort,
	})
}

type allreducePort struct {
	*base
	k           *typedKernels[params.AllreducePortArgs]
	portScatter            // the reduce-scatter: scratch, channels into the peers' from my input / output
	outChans    device.Ptr // memory channels to the peers' outputs
}

func newAllreducePort(env *Env) (Instance, error) {
	b, err := newBase(env)
	if err != nil {
		return nil, err
	}
	a := &allreducePort{base: b}
	if a.k, err = loadTyped(env.GPU, params.AllreducePort, nil); err != nil {
		return nil, err
	}
	if a.portScatter, err = newPortScatter(b, roundUp(uint64(env.MaxBytes)/uint64(env.NRanks)+16, 256), env.NRanks); err != nil {
		return nil, err
	}
	a.outChans, err = b.memoryChannels(env.Out, env.Out.Ptrs[env.Rank])
	return a, err
}

// PieceBytes cuts a rank's chunk into pieces for the copy engine. Issuing a trigger costs the
// proxy about 12 µs of CPU, so a piece must take longer than that to copy (8 MiB: ~21 µs at
// 390 GB/s; 4 MiB pieces starved the copy engine: 309 instead of 340 GB/s at 256 MiB). Up
// to 16 MiB, since the first piece's copy and the last piece's reduction are not overlapped
// (64 MiB pieces cost 2 GiB runs 3%). Measured on 2xH200.
func PieceBytes(chunk uint64) uint64 {
	p := roundUp(chunk/16, 16)
	return min(max(p, 8<<20), 16<<20)
}

func (a *allreducePort) Launch(l *LaunchArgs, s device.Stream) error {
	k, err := a.k.get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.env
	return k.Launch(device.Dim{Grid: e.SMs, Block: 1024}, s, &params.AllreducePortArgs{
		RSChans: a.from(l), OutChans: a.outChans, Scratch: a.scratch, SlotBytes: a.slotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		InOff: l.InOff, OutOff: l.OutOff, Count: uint64(l.Count), PieceBytes: PieceBytes(l.SendBytes / uint64(e.NRanks)),
		Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.state,
	})
}
