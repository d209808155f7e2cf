package sendrecv

import "github.com/mscclpp-bench/mscclpp-bench/collectives"

// sendRecv is nccl-tests' sendrecv: every rank sends its buffer to the next rank and
// receives the previous rank's (a ring, modulo the rank count). Algorithms: sendrecv_*.go.
type sendRecv struct{}

func init() { collectives.RegisterCollective(sendRecv{}) }

func (sendRecv) Name() string     { return "sendrecv" }
func (sendRecv) TestName() string { return "sendrecv_perf" }
func (sendRecv) Doc() string {
	return "Send-receive: every rank sends its buffer to the next rank and receives the previous rank's"
}
func (sendRecv) HasOp() bool   { return false }
func (sendRecv) HasRoot() bool { return false }

// OpLabel: nccl-tests prints sendrecv's redop column as the -o operator (default "sum"),
// which sendrecv does not use, and repeats the sweep for each of -o all's; scripts that
// read that column see the same words from us.
func (sendRecv) OpLabel(requested collectives.Op) string {
	if requested == collectives.OpNone {
		return "sum"
	}
	return string(requested)
}

// Counts follows nccl-tests: the whole size, not rounded; in place, input and output both
// start at the output buffer's start.
func (sendRecv) Counts(size int64, dt collectives.Datatype, nranks int) collectives.Counts {
	count := size / int64(dt.Size)
	return collectives.Counts{Send: count, Recv: count, Param: count}
}

// BusFactor is nccl-tests' bus-bandwidth factor for sendrecv: 1.
func (sendRecv) BusFactor(_ int) float64 { return 1 }

// Bandwidth: Param elements cross one link per rank; bus bandwidth is algorithm bandwidth
// times BusFactor.
func (t sendRecv) Bandwidth(c collectives.Counts, eltSize int, sec float64, nranks int) (float64, float64) {
	return collectives.ScaledBw(c, eltSize, sec, 1, t.BusFactor(nranks))
}

// PrevRank is the rank that sends to rank r.
func PrevRank(r, nranks int) int { return (r + nranks - 1) % nranks }

// InitData poisons the output, then fills the input with my pattern (in place the fill
// replaces the poison).
func (sendRecv) InitData(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	me := v.Env.Rank
	if err := v.Poison(v.Env.OutPtr(a, me), a.RecvBytes); err != nil {
		return err
	}
	return v.FillPattern(v.Env.InPtr(a, me), a.SendBytes, me, seed)
}

// Check counts the output elements that do not hold the previous rank's pattern.
func (sendRecv) Check(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	me := v.Env.Rank
	return v.CheckPatternOf(v.Env.OutPtr(a, me), a.RecvBytes, PrevRank(me, v.Env.NRanks), seed, a.Type.Size)
}
