package alltoall

import "github.com/mscclpp-bench/mscclpp-bench/collectives"

// AllToAll is the all-to-all collective: every rank's input holds nranks chunks of Param
// elements, and chunk q of rank r's input goes to chunk r of rank q's output.
// Algorithms: alltoall_*.go.
type AllToAll struct{}

func init() { collectives.RegisterCollective(AllToAll{}) }

// Name is the subcommand.
func (AllToAll) Name() string { return "alltoall" }

// TestName is nccl-tests' program name.
func (AllToAll) TestName() string { return "alltoall_perf" }

// Doc is the subcommand's line of help.
func (AllToAll) Doc() string {
	return "All-to-all: every rank sends a distinct block of its buffer to each rank"
}

// HasOp says whether -o applies: no.
func (AllToAll) HasOp() bool { return false }

// HasRoot says whether -r applies.
func (AllToAll) HasRoot() bool { return false }

// Counts follows nccl-tests: the chunk for each rank is the size's share, rounded down to a
// multiple of 16 bytes; every rank sends and receives nranks chunks; in place, input and
// output both start at the output buffer's start on every rank.
func (AllToAll) Counts(size int64, dt collectives.Datatype, nranks int) collectives.Counts {
	count := size / int64(dt.Size)
	chunk := (count / int64(nranks)) &^ (16/int64(dt.Size) - 1)
	return collectives.Counts{Send: chunk * int64(nranks), Recv: chunk * int64(nranks), Param: chunk}
}

// BusFactor is nccl-tests' bus-bandwidth factor for alltoall: (n-1)/n.
func (AllToAll) BusFactor(nranks int) float64 { return collectives.RingFactor(nranks) }

// Bandwidth: every rank sends Param elements to each of n ranks; bus bandwidth is
// algorithm bandwidth times BusFactor.
func (t AllToAll) Bandwidth(c collectives.Counts, eltSize int, sec float64, nranks int) (float64, float64) {
	return collectives.ScaledBw(c, eltSize, sec, int64(nranks), t.BusFactor(nranks))
}

// PatternID is the pattern that chunk `to` of rank from's input holds: a distinct pattern
// for every (sender, receiver) pair, so a chunk delivered to the wrong rank or slot is caught.
func PatternID(from, to, nranks int) int { return from*nranks + to }

// InitData poisons the output, then fills input chunk q with the pattern of (me, q). In
// place the fills replace the poison.
func (AllToAll) InitData(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	me, n := v.Env.Rank, v.Env.NRanks
	if err := v.Poison(v.Env.OutPtr(a, me), a.RecvBytes); err != nil {
		return err
	}
	chunk := a.SendBytes / uint64(n)
	in := v.Env.InPtr(a, me)
	for q := 0; q < n; q++ {
		if err := v.FillPattern(in.Add(uint64(q)*chunk), chunk, PatternID(me, q, n), seed); err != nil {
			return err
		}
	}
	return nil
}

// Check counts the elements of output chunk q that do not hold the pattern of (q, me).
func (AllToAll) Check(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	me, n := v.Env.Rank, v.Env.NRanks
	chunk := a.RecvBytes / uint64(n)
	out := v.Env.OutPtr(a, me)
	for q := 0; q < n; q++ {
		if err := v.CheckPatternOf(out.Add(uint64(q)*chunk), chunk, PatternID(q, me, n), seed, a.Type.Size); err != nil {
			return err
		}
	}
	return nil
}
