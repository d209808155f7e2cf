package alltoallv

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/alltoall"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// allToAllV is nccl-tests' alltoallv test with its default generated pattern: rank i
// sends rank j the bytes AlltoallvPeerBytes gives (more to ranks further ahead of it, none
// to itself). Every rank's input is one stream of its segments for ranks 0, 1, ...; its
// output the segments it receives from ranks 0, 1, ..., each where the one before ends.
// Algorithms: alltoallv_*.go.
type allToAllV struct{}

func init() { collectives.RegisterCollective(allToAllV{}) }

func (allToAllV) Name() string     { return "alltoallv" }
func (allToAllV) TestName() string { return "alltoallv_perf" }
func (allToAllV) Doc() string {
	return "All-to-all-v: every rank sends each rank a segment of its own length (nccl-tests' distance-weighted pattern)"
}
func (allToAllV) HasOp() bool   { return false }
func (allToAllV) HasRoot() bool { return false }

// Counts follows nccl-tests: the printed count is alltoall's chunk; every rank sends and
// receives the sum of its segments (the pattern is symmetric: a rank receives from the
// ranks behind it what it sends to those ahead); in place both start the output buffer.
func (allToAllV) Counts(size int64, dt collectives.Datatype, nranks int) collectives.Counts {
	param := alltoall.AllToAll{}.Counts(size, dt, nranks).Param
	total := param * int64(nranks) * int64(dt.Size) // alltoallvTotal
	var send int64
	for j := 0; j < nranks; j++ {
		send += algo.AlltoallvPeerBytes(0, j, nranks, total) / int64(dt.Size)
	}
	return collectives.Counts{Send: send, Recv: send, Param: param}
}

// BusFactor is nccl-tests' bus-bandwidth factor for alltoallv: (n-1)/n.
func (allToAllV) BusFactor(nranks int) float64 { return collectives.RingFactor(nranks) }

// Bandwidth: the larger of the elements a rank sends and receives; bus bandwidth is
// algorithm bandwidth times BusFactor.
func (t allToAllV) Bandwidth(c collectives.Counts, eltSize int, sec float64, nranks int) (float64, float64) {
	alg := results.AlgBw(max(c.Send, c.Recv)*int64(eltSize), sec)
	return alg, alg * t.BusFactor(nranks)
}

// segment is one rank's segment for another: where it starts in the sender's input and
// in the receiver's output, and its bytes.
type segment struct{ From, To, Bytes uint64 }

// AlltoallvSegment is the segment rank from sends rank to.
func AlltoallvSegment(from, to, nranks int, total int64) segment {
	var s segment
	for k := 0; k < to; k++ {
		s.From += uint64(algo.AlltoallvPeerBytes(from, k, nranks, total))
	}
	for k := 0; k < from; k++ {
		s.To += uint64(algo.AlltoallvPeerBytes(k, to, nranks, total))
	}
	s.Bytes = uint64(algo.AlltoallvPeerBytes(from, to, nranks, total))
	return s
}

// InitData poisons the output, then fills my segment for each rank q with the pattern of
// (me, q), so a segment delivered to the wrong rank or place is caught. In place the fills
// replace the poison.
func (allToAllV) InitData(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	me, n := v.Env.Rank, v.Env.NRanks
	if err := v.Poison(v.Env.OutPtr(a, me), a.RecvBytes); err != nil {
		return err
	}
	in, total := v.Env.InPtr(a, me), algo.AlltoallvTotal(a, n)
	for q := 0; q < n; q++ {
		if s := AlltoallvSegment(me, q, n, total); s.Bytes > 0 {
			if err := v.FillPattern(in.Add(s.From), s.Bytes, alltoall.PatternID(me, q, n), seed); err != nil {
				return err
			}
		}
	}
	return nil
}

// Check counts the elements of the segment from each rank q that do not hold the pattern
// of (q, me); the segments cover the whole output.
func (allToAllV) Check(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	me, n := v.Env.Rank, v.Env.NRanks
	out, total := v.Env.OutPtr(a, me), algo.AlltoallvTotal(a, n)
	for q := 0; q < n; q++ {
		if s := AlltoallvSegment(q, me, n, total); s.Bytes > 0 {
			if err := v.CheckPatternOf(out.Add(s.To), s.Bytes, alltoall.PatternID(q, me, n), seed, a.Type.Size); err != nil {
				return err
			}
		}
	}
	return nil
}
