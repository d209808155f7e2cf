package allreduce

import "github.com/mscclpp-bench/mscclpp-bench/collectives"

// allReduce is the all-reduce collective: every rank receives the reduction of every
// rank's Send elements. Algorithms: allreduce_*.go.
type allReduce struct{}

func init() { collectives.RegisterCollective(allReduce{}) }

func (allReduce) Name() string     { return "allreduce" }
func (allReduce) TestName() string { return "all_reduce_perf" }
func (allReduce) Doc() string {
	return "All-reduce: every rank receives the reduction of all ranks' buffers"
}
func (allReduce) HasOp() bool   { return true }
func (allReduce) HasRoot() bool { return false }

// UniformOutput says every rank ends with the same output (the repeat check compares ranks).
func (allReduce) UniformOutput() bool { return true }

func (allReduce) Counts(size int64, dt collectives.Datatype, _ int) collectives.Counts {
	count := size / int64(dt.Size)
	return collectives.Counts{Send: count, Recv: count, Param: count}
}

// BusFactor is nccl-tests' bus-bandwidth factor for allreduce: 2(n-1)/n.
func (allReduce) BusFactor(nranks int) float64 { return 2 * collectives.RingFactor(nranks) }

// Bandwidth: Param elements; bus bandwidth is algorithm bandwidth times BusFactor.
func (t allReduce) Bandwidth(c collectives.Counts, eltSize int, sec float64, nranks int) (float64, float64) {
	return collectives.ScaledBw(c, eltSize, sec, 1, t.BusFactor(nranks))
}

// InitData fills the input; out of place it also poisons the output (in place the output
// is the input).
func (allReduce) InitData(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	if !a.InPlace {
		if err := v.Poison(v.Env.OutPtr(a, v.Env.Rank), a.RecvBytes); err != nil {
			return err
		}
	}
	return v.FillValues(v.Env.InPtr(a, v.Env.Rank), a.Type, a.Op, a.Count, seed)
}

func (allReduce) Check(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	return v.CheckValues(v.Env.OutPtr(a, v.Env.Rank), a.Type, a.Op, a.Count, 0, seed)
}
