package gather

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allgather"
)

// gather is the gather collective: every rank's input of Param elements goes to slot r of
// the root's output (-r). As in nccl-tests, the other ranks' outputs must be left as they
// were. Algorithms: gather_*.go.
type gather struct{}

func init() { collectives.RegisterCollective(gather{}) }

func (gather) Name() string     { return "gather" }
func (gather) TestName() string { return "gather_perf" }
func (gather) Doc() string {
	return "Gather: the root receives every rank's buffer, in rank order (-r)"
}
func (gather) HasOp() bool   { return false }
func (gather) HasRoot() bool { return true }

// Counts follows nccl-tests: all-gather's (each rank sends the size's share, rounded down
// to a multiple of 16 bytes, and the root receives nranks of them; in place, rank r's
// input is slot r of its output buffer).
func (gather) Counts(size int64, dt collectives.Datatype, nranks int) collectives.Counts {
	return allgather.AllGather{}.Counts(size, dt, nranks)
}

// BusFactor is nccl-tests' bus-bandwidth factor for gather: (n-1)/n.
func (gather) BusFactor(nranks int) float64 { return collectives.RingFactor(nranks) }

// Bandwidth: nranks slots of Param elements reach the root; bus bandwidth is algorithm
// bandwidth times BusFactor.
func (t gather) Bandwidth(c collectives.Counts, eltSize int, sec float64, nranks int) (float64, float64) {
	return collectives.ScaledBw(c, eltSize, sec, int64(nranks), t.BusFactor(nranks))
}

// untouchedID is the pattern a rank that receives nothing puts in its output before the
// collective, so that a write into it is found: no rank's pattern (ids 0..nranks-1).
func untouchedID(nranks int) int { return nranks }

// InitData fills my input with my pattern. The root's output is poisoned; the others'
// outputs get the untouched pattern, slot by slot (in place my slot is my input).
func (gather) InitData(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	me, n := v.Env.Rank, v.Env.NRanks
	out := v.Env.OutPtr(a, me)
	if me == a.Root {
		if err := v.Poison(out, a.RecvBytes); err != nil {
			return err
		}
	} else {
		for q := 0; q < n; q++ {
			if err := v.FillPattern(out.Add(uint64(q)*a.SendBytes), a.SendBytes, untouchedID(n), seed); err != nil {
				return err
			}
		}
	}
	return v.FillPattern(v.Env.InPtr(a, me), a.SendBytes, me, seed)
}

// Check: slot q of the root's output must hold rank q's pattern; another rank's output
// must be as InitData left it.
func (gather) Check(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	me, n := v.Env.Rank, v.Env.NRanks
	out := v.Env.OutPtr(a, me)
	if me == a.Root {
		return v.CheckPattern(out, a.SendBytes, n, seed, a.Type.Size)
	}
	for q := 0; q < n; q++ {
		id := untouchedID(n)
		if a.InPlace && q == me {
			id = me
		}
		if err := v.CheckPatternOf(out.Add(uint64(q)*a.SendBytes), a.SendBytes, id, seed, a.Type.Size); err != nil {
			return err
		}
	}
	return nil
}
