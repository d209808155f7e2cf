package collectives

import "github.com/mscclpp-bench/mscclpp-bench/internal/device"

// allgather put: GPU threads write my chunk into every peer's output over NVLink
// (kernels/allgather.cu allgather_put).
func init() {
	Register(&Algorithm{
		Collective: "allgather", Name: "put", Number: 1,
		Doc:      "memory channels: SM threads put my chunk into every peer's output",
		MinRanks: 2,
		AutoMin:  2<<20 + 1, AutoMax: 64 << 20, AutoPriority: 0,
		New: newAllgatherPut,
	})
}

type allgatherPut struct {
	*base
	outChans device.Ptr
}

func newAllgatherPut(env *Env) (Instance, error) {
	b, err := newBase(env)
	if err != nil {
		return nil, err
	}
	a := &allgatherPut{base: b}
	a.outChans, err = b.memoryChannels(env.Out, env.Out.Ptrs[env.Rank])
	return a, err
}

func (a *allgatherPut) Launch(l *LaunchArgs, s device.Stream) error {
	e := a.env
	return a.launch("allgather_put", device.Dim{Grid: a.blocks(l.SendBytes, 16<<10), Block: 1024}, s,
		uint64(a.outChans), uint64(e.InPtr(l, e.Rank)), uint64(e.OutPtr(l, e.Rank)), l.OutOff, l.SendBytes,
		uint64(e.Rank), uint64(e.NRanks), uint64(a.state))
}
