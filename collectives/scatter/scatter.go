package scatter

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allgather"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/alltoall"
)

// scatter is the scatter collective: the root's input holds nranks slots of Param
// elements, and slot r goes to rank r's output (-r). Algorithms: scatter_*.go.
type scatter struct{}

func init() { collectives.RegisterCollective(scatter{}) }

func (scatter) Name() string     { return "scatter" }
func (scatter) TestName() string { return "scatter_perf" }
func (scatter) Doc() string      { return "Scatter: every rank receives its slot of the root's buffer (-r)" }
func (scatter) HasOp() bool      { return false }
func (scatter) HasRoot() bool    { return true }

// Counts follows nccl-tests: each rank receives the size's share, rounded down to a
// multiple of 16 bytes, and the root sends nranks of them; in place, the root's input
// starts the output buffer and rank r's output is slot r of it.
func (scatter) Counts(size int64, dt collectives.Datatype, nranks int) collectives.Counts {
	recv := allgather.AllGather{}.Counts(size, dt, nranks).Param
	return collectives.Counts{Send: recv * int64(nranks), Recv: recv, Param: recv, RecvInPlace: recv}
}

// BusFactor is nccl-tests' bus-bandwidth factor for scatter: (n-1)/n.
func (scatter) BusFactor(nranks int) float64 { return collectives.RingFactor(nranks) }

// Bandwidth: nranks slots of Param elements leave the root; bus bandwidth is algorithm
// bandwidth times BusFactor.
func (t scatter) Bandwidth(c collectives.Counts, eltSize int, sec float64, nranks int) (float64, float64) {
	return collectives.ScaledBw(c, eltSize, sec, int64(nranks), t.BusFactor(nranks))
}

// InitData poisons my output, then fills slot q of my input with the pattern of (me, q):
// only the root's slot for me may arrive, so data from another rank or slot is caught.
// In place the root's fills replace the poison of its own slot, as its output is there.
func (scatter) InitData(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	me, n := v.Env.Rank, v.Env.NRanks
	if err := v.Poison(v.Env.OutPtr(a, me), a.RecvBytes); err != nil {
		return err
	}
	if a.InPlace && me != a.Root {
		return nil // my input overlaps my output and is never read
	}
	in := v.Env.InPtr(a, me)
	for q := 0; q < n; q++ {
		if err := v.FillPattern(in.Add(uint64(q)*a.RecvBytes), a.RecvBytes, alltoall.PatternID(me, q, n), seed); err != nil {
			return err
		}
	}
	return nil
}

// Check counts the elements of my output that do not hold slot me of the root's input.
func (scatter) Check(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	me, n := v.Env.Rank, v.Env.NRanks
	return v.CheckPatternOf(v.Env.OutPtr(a, me), a.RecvBytes, alltoall.PatternID(a.Root, me, n), seed, a.Type.Size)
}
