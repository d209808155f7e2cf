package reduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/broadcast"
)

// reduce is the reduce collective: the root's output receives the reduction of every
// rank's input (-r); the other ranks' outputs are not checked, as in nccl-tests.
// Algorithms: reduce_*.go.
type reduce struct{}

func init() { collectives.RegisterCollective(reduce{}) }

func (reduce) Name() string     { return "reduce" }
func (reduce) TestName() string { return "reduce_perf" }
func (reduce) Doc() string {
	return "Reduce: the root receives the reduction of all ranks' buffers (-r)"
}
func (reduce) HasOp() bool   { return true }
func (reduce) HasRoot() bool { return true }

// Counts follows nccl-tests: the same as broadcast's.
func (reduce) Counts(size int64, dt collectives.Datatype, nranks int) collectives.Counts {
	return broadcast.Broadcast{}.Counts(size, dt, nranks)
}

// BusFactor is nccl-tests' bus-bandwidth factor for reduce: 1.
func (reduce) BusFactor(_ int) float64 { return 1 }

// Bandwidth: Param elements reach the root; bus bandwidth is algorithm bandwidth times
// BusFactor.
func (t reduce) Bandwidth(c collectives.Counts, eltSize int, sec float64, nranks int) (float64, float64) {
	return collectives.ScaledBw(c, eltSize, sec, 1, t.BusFactor(nranks))
}

// InitData poisons the output, then fills the input with this rank's values (in place the
// fill replaces the poison, as the input is the output).
func (reduce) InitData(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	if err := v.Poison(v.Env.OutPtr(a, v.Env.Rank), a.RecvBytes); err != nil {
		return err
	}
	return v.FillValues(v.Env.InPtr(a, v.Env.Rank), a.Type, a.Op, a.Count, seed)
}

// Check compares the root's output with the reduction; other ranks have nothing to check.
func (reduce) Check(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	if v.Env.Rank != a.Root {
		return nil
	}
	return v.CheckValues(v.Env.OutPtr(a, v.Env.Rank), a.Type, a.Op, int64(a.RecvBytes)/int64(a.Type.Size), 0, seed)
}
