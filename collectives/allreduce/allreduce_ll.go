package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// allreduce ll8 / ll16: one shot with LL packets (allreduce.cu allreduceOneShot):
// every rank sends its whole buffer to every peer as packets and reduces what arrives. The
// lowest latency; LL8 moves 4 bytes per 8-byte packet, LL16 8 per 16.
func init() {
	ll8 := ll8Types()
	collectives.Register(&collectives.Algorithm{
		Collective: "allreduce", Name: "ll8", Number: 0, AnyOffset: true,
		Doc:      "one shot, LL8 packets; the smallest messages (types of up to 4 bytes)",
		MaxBytes: 1 << 20, MinRanks: 2,
		Types:   ll8,
		AutoMin: 0, AutoMax: 256 << 10, AutoPriority: 0,
		New: func(env *collectives.Env) (collectives.Instance, error) {
			return newAllreduceLL(env, AllreduceLL8, ll8, 4, 1<<20)
		},
	})
	collectives.Register(&collectives.Algorithm{
		Collective: "allreduce", Name: "ll16", Number: 1, AnyOffset: true,
		Doc:      "one shot, LL16 packets; small and medium messages",
		MaxBytes: 8 << 20, MinRanks: 2,
		AutoMin: 0, AutoMax: 1 << 20, AutoPriority: 1,
		New: func(env *collectives.Env) (collectives.Instance, error) {
			return newAllreduceLL(env, AllreduceLL16, nil, 8, 8<<20)
		},
	})
}

// ll8Types lists the types LL8 carries: a packet holds 4 data bytes, so types of up to 4
// bytes. The kernels (allreduce_ll8 in allreduce.cu) exist for exactly these
// (TestKernelTypes).
func ll8Types() []string {
	var out []string
	for _, d := range collectives.Datatypes {
		if d.Size <= 4 {
			out = append(out, d.Name)
		}
	}
	return out
}

type allreduceLL struct {
	*algo.Base
	k         *algo.TypedKernels[AllreduceLLArgs]
	unit      uint64 // data bytes per packet
	chans     device.Ptr
	scratch   device.Ptr
	slotBytes uint64
}

func newAllreduceLL(env *collectives.Env, kernels params.Family[AllreduceLLArgs], types []string, unit uint64, algMax int64) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	// A packet is twice its data; slots hold one rank's whole buffer as packets.
	a := &allreduceLL{Base: b, unit: unit, slotBytes: algo.RoundUp(2*algo.Limit(algMax, env.MaxBytes)+32, 256)}
	if a.k, err = algo.LoadTyped(env.GPU, kernels, types); err != nil {
		return nil, err
	}
	scratch, buf, err := b.ShareScratch(2 * uint64(env.NRanks) * a.slotBytes)
	if err != nil {
		return nil, err
	}
	a.scratch = scratch
	a.chans, err = b.MemoryChannels(buf, scratch)
	return a, err
}

func (a *allreduceLL) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	k, err := a.k.Get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.Env
	units := (l.SendBytes + a.unit - 1) / a.unit
	return k.Launch(device.Dim{Grid: a.Blocks(units, 512), Block: 512}, s, &AllreduceLLArgs{
		Chans: a.chans, Scratch: a.scratch, SlotBytes: a.slotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		Count: uint64(l.Count), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
