package reducescatter

import "github.com/mscclpp-bench/mscclpp-bench/collectives"

// reduceScatter is the reduce-scatter collective: every rank's input holds nranks blocks
// of Recv elements, and rank r receives block r reduced over every rank's input.
// Algorithms: reducescatter_*.go.
type reduceScatter struct{}

func init() { collectives.RegisterCollective(reduceScatter{}) }

func (reduceScatter) Name() string     { return "reducescatter" }
func (reduceScatter) TestName() string { return "reduce_scatter_perf" }
func (reduceScatter) Doc() string {
	return "Reduce-scatter: every rank receives its block of the reduction of all ranks' buffers"
}
func (reduceScatter) HasOp() bool   { return true }
func (reduceScatter) HasRoot() bool { return false }

// Counts follows nccl-tests: each rank's block is the size's share, rounded down to a
// multiple of 16 bytes; in place, rank r's output is block r of its input.
func (reduceScatter) Counts(size int64, dt collectives.Datatype, nranks int) collectives.Counts {
	count := size / int64(dt.Size)
	base := (count / int64(nranks)) &^ (16/int64(dt.Size) - 1)
	return collectives.Counts{Send: base * int64(nranks), Recv: base, Param: base, RecvInPlace: base}
}

// BusFactor is nccl-tests' bus-bandwidth factor for reducescatter: (n-1)/n.
func (reduceScatter) BusFactor(nranks int) float64 { return collectives.RingFactor(nranks) }

// Bandwidth: every rank sends Param elements to each of n ranks; bus bandwidth is
// algorithm bandwidth times BusFactor.
func (t reduceScatter) Bandwidth(c collectives.Counts, eltSize int, sec float64, nranks int) (float64, float64) {
	return collectives.ScaledBw(c, eltSize, sec, int64(nranks), t.BusFactor(nranks))
}

// InitData poisons the output, then fills the whole input (in place the output is inside
// the input, so the fill replaces the poison there, as nccl-tests' zeroing is replaced).
func (reduceScatter) InitData(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	if err := v.Poison(v.Env.OutPtr(a, v.Env.Rank), a.RecvBytes); err != nil {
		return err
	}
	return v.FillValues(v.Env.InPtr(a, v.Env.Rank), a.Type, a.Op, a.Count, seed)
}

// Check compares my block with elements [rank*Recv, (rank+1)*Recv) of the reduction.
func (reduceScatter) Check(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	recv := int64(a.RecvBytes) / int64(a.Type.Size)
	return v.CheckValues(v.Env.OutPtr(a, v.Env.Rank), a.Type, a.Op, recv, int64(v.Env.Rank)*recv, seed)
}
