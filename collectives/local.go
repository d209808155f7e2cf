package collectives

import "github.com/mscclpp-bench/mscclpp-bench/internal/device"

// registerLocal gives a collective its one-rank fallback, the harness's and not the
// collective's: with one rank every collective's output is its input (a copy out of place;
// nothing at all in place, where both start at the output buffer's start).
func registerLocal(collective string) {
	Register(&Algorithm{
		Collective: collective, Name: "local", Number: 99, Doc: "one rank: copy input to output",
		MinRanks: 1, MaxRanks: 1, AutoMin: 0, AutoMax: 1 << 62, AutoPriority: 0, AnyOffset: true,
		New: func(env *Env) (Instance, error) { return &localCopy{env}, nil },
	})
}

// localCopy is the one-rank instance: it holds no state of its own.
type localCopy struct{ env *Env }

// Close does nothing: the instance owns no memory.
func (l *localCopy) Close() error { return nil }

func (l *localCopy) Launch(a *LaunchArgs, s device.Stream) error {
	in, out := l.env.InPtr(a, 0), l.env.OutPtr(a, 0)
	if in == out || a.RecvBytes == 0 {
		return nil
	}
	return l.env.GPU.CopyAsync(out, in, a.RecvBytes, s)
}
