package allgather

import "github.com/mscclpp-bench/mscclpp-bench/collectives"

// AllGather is the all-gather collective: every rank contributes Send elements and
// receives every rank's, rank r's at slot r. Algorithms: allgather_*.go.
type AllGather struct{}

func init() { collectives.RegisterCollective(AllGather{}) }

// Name is the subcommand.
func (AllGather) Name() string { return "allgather" }

// TestName is nccl-tests' program name.
func (AllGather) TestName() string { return "all_gather_perf" }

// Doc is the subcommand's line of help.
func (AllGather) Doc() string { return "All-gather: every rank receives every rank's buffer" }

// HasOp says whether -o applies: no.
func (AllGather) HasOp() bool { return false }

// HasRoot says whether -r applies.
func (AllGather) HasRoot() bool { return false }

// UniformOutput says every rank ends with the same output (the repeat check compares ranks).
func (AllGather) UniformOutput() bool { return true }

// Counts follows nccl-tests: the per-rank count is the size's share, rounded down to a
// multiple of 16 bytes.
func (AllGather) Counts(size int64, dt collectives.Datatype, nranks int) collectives.Counts {
	count := size / int64(dt.Size)
	base := (count / int64(nranks)) &^ (16/int64(dt.Size) - 1)
	return collectives.Counts{Send: base, Recv: base * int64(nranks), Param: base, SendInPlace: base}
}

// BusFactor is nccl-tests' bus-bandwidth factor for allgather: (n-1)/n.
func (AllGather) BusFactor(nranks int) float64 { return collectives.RingFactor(nranks) }

// Bandwidth: every rank receives Param elements from each of n ranks; bus bandwidth is
// algorithm bandwidth times BusFactor.
func (t AllGather) Bandwidth(c collectives.Counts, eltSize int, sec float64, nranks int) (float64, float64) {
	return collectives.ScaledBw(c, eltSize, sec, int64(nranks), t.BusFactor(nranks))
}

// InitData fills this rank's input and poisons its output.
func (AllGather) InitData(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	if err := v.Poison(v.Env.OutPtr(a, v.Env.Rank), a.RecvBytes); err != nil {
		return err
	}
	return v.FillPattern(v.Env.InPtr(a, v.Env.Rank), a.SendBytes, v.Env.Rank, seed)
}

// Check counts this rank's wrong output elements.
func (AllGather) Check(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	return v.CheckPattern(v.Env.OutPtr(a, v.Env.Rank), a.SendBytes, v.Env.NRanks, seed, a.Type.Size)
}
