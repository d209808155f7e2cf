package broadcast

import "github.com/mscclpp-bench/mscclpp-bench/collectives"

// Broadcast is the broadcast collective: every rank's output receives the root's input
// (-r). Algorithms: broadcast_*.go.
type Broadcast struct{}

func init() { collectives.RegisterCollective(Broadcast{}) }

// Name is the subcommand.
func (Broadcast) Name() string { return "broadcast" }

// TestName is nccl-tests' program name.
func (Broadcast) TestName() string { return "broadcast_perf" }

// Doc is the subcommand's line of help.
func (Broadcast) Doc() string { return "Broadcast: every rank receives the root's buffer (-r)" }

// HasOp says whether -o applies: no.
func (Broadcast) HasOp() bool { return false }

// HasRoot says whether -r applies.
func (Broadcast) HasRoot() bool { return true }

// UniformOutput says every rank ends with the same output (the repeat check compares ranks).
func (Broadcast) UniformOutput() bool { return true }

// Counts follows nccl-tests: every rank sends and receives the whole size (only the
// root's input is read); in place, input and output both start the output buffer.
func (Broadcast) Counts(size int64, dt collectives.Datatype, nranks int) collectives.Counts {
	count := size / int64(dt.Size)
	return collectives.Counts{Send: count, Recv: count, Param: count}
}

// BusFactor is nccl-tests' bus-bandwidth factor for broadcast: 1.
func (Broadcast) BusFactor(_ int) float64 { return 1 }

// Bandwidth: the root's Param elements reach every rank; bus bandwidth is algorithm
// bandwidth times BusFactor.
func (t Broadcast) Bandwidth(c collectives.Counts, eltSize int, sec float64, nranks int) (float64, float64) {
	return collectives.ScaledBw(c, eltSize, sec, 1, t.BusFactor(nranks))
}

// InitData poisons the output, then fills the input with this rank's pattern: only the
// root's must arrive, so a rank that kept its own (in place) or read another's is wrong.
// In place the fill replaces the poison, as the input is the output.
func (Broadcast) InitData(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	if err := v.Poison(v.Env.OutPtr(a, v.Env.Rank), a.RecvBytes); err != nil {
		return err
	}
	return v.FillPattern(v.Env.InPtr(a, v.Env.Rank), a.SendBytes, v.Env.Rank, seed)
}

// Check counts the elements of my output that differ from the root's pattern
// (checkPatternOf: alltoall.go).
func (Broadcast) Check(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	return v.CheckPatternOf(v.Env.OutPtr(a, v.Env.Rank), a.RecvBytes, a.Root, seed, a.Type.Size)
}
