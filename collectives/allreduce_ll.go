package collectives

import (
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// allreduce ll8 / ll16: one shot with LL packets (kernels/allreduce.cu allreduceOneShot):
// every rank sends its whole buffer to every peer as packets and reduces what arrives. The
// lowest latency; LL8 moves 4 bytes per 8-byte packet, LL16 8 per 16.
func init() {
	Register(&Algorithm{
		Collective: "allreduce", Name: "ll8", Number: 0,
		Doc:      "one shot, LL8 packets; the smallest messages (types of up to 4 bytes)",
		MaxBytes: 1 << 20, MinRanks: 2,
		Types:   []string{"int8", "uint8", "int32", "uint32", "half", "float", "bfloat16"},
		AutoMin: 0, AutoMax: 256 << 10, AutoPriority: 0,
		New: func(env *Env) (Instance, error) { return newAllreduceLL(env, "ll8", 4, 1<<20) },
	})
	Register(&Algorithm{
		Collective: "allreduce", Name: "ll16", Number: 1,
		Doc:      "one shot, LL16 packets; small and medium messages",
		MaxBytes: 8 << 20, MinRanks: 2,
		AutoMin: 0, AutoMax: 1 << 20, AutoPriority: 1,
		New: func(env *Env) (Instance, error) { return newAllreduceLL(env, "ll16", 8, 8<<20) },
	})
}

type allreduceLL struct {
	*base
	kernel    string
	unit      uint64 // data bytes per packet
	chans     device.Ptr
	scratch   device.Ptr
	slotBytes uint64
}

func newAllreduceLL(env *Env, kernel string, unit uint64, algMax int64) (Instance, error) {
	b, err := newBase(env)
	if err != nil {
		return nil, err
	}
	// A packet is twice its data; slots hold one rank's whole buffer as packets.
	a := &allreduceLL{base: b, kernel: kernel, unit: unit, slotBytes: roundUp(2*limit(algMax, env.MaxBytes)+32, 256)}
	scratch, buf, err := b.shareScratch(2 * uint64(env.NRanks) * a.slotBytes)
	if err != nil {
		return nil, err
	}
	a.scratch = scratch
	a.chans, err = b.memoryChannels(buf, scratch)
	return a, err
}

func (a *allreduceLL) Launch(l *LaunchArgs, s device.Stream) error {
	e := a.env
	units := (l.SendBytes + a.unit - 1) / a.unit
	return a.launch(fmt.Sprintf("allreduce_%s_%s_%s", a.kernel, l.Type.Name, l.Op), device.Dim{Grid: a.blocks(units, 512), Block: 512}, s,
		uint64(a.chans), uint64(a.scratch), a.slotBytes, uint64(e.InPtr(l, e.Rank)), uint64(e.OutPtr(l, e.Rank)),
		uint64(l.Count), uint64(e.Rank), uint64(e.NRanks), uint64(a.state))
}
