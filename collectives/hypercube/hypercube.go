package hypercube

import (
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allgather"
)

// hypercube is nccl-tests' hypercube test: an all-gather done in log2(nranks) steps, in
// step k each rank exchanging everything it holds with the rank whose number differs in
// bit k. After the last step every rank holds every rank's input, in rank order, so the
// data, counts and checks are all-gather's. It needs a power-of-two rank count.
// Algorithms: hypercube_*.go.
type hypercube struct{}

func init() { collectives.RegisterCollective(hypercube{}) }

func (hypercube) Name() string     { return "hypercube" }
func (hypercube) TestName() string { return "hypercube_perf" }
func (hypercube) Doc() string {
	return "Hypercube: all-gather by log2(n) pairwise exchanges (a power-of-two rank count)"
}
func (hypercube) HasOp() bool   { return false }
func (hypercube) HasRoot() bool { return false }

// OpLabel: nccl-tests runs hypercube with an empty operator name, so its redop column
// is blank.
func (hypercube) OpLabel(collectives.Op) string { return "" }

// CheckRanks refuses a rank count that is not a power of two (nccl-tests skips the test).
func (hypercube) CheckRanks(nranks int) error {
	if nranks < 1 || nranks&(nranks-1) != 0 {
		return fmt.Errorf("hypercube needs a power-of-two rank count; this job has %d ranks", nranks)
	}
	return nil
}

// Counts follows nccl-tests: all-gather's.
func (hypercube) Counts(size int64, dt collectives.Datatype, nranks int) collectives.Counts {
	return allgather.AllGather{}.Counts(size, dt, nranks)
}

// BusFactor is nccl-tests' bus-bandwidth factor for hypercube: 1.
func (hypercube) BusFactor(_ int) float64 { return 1 }

// Bandwidth: every rank receives Param elements from each of the n-1 others; bus bandwidth
// is algorithm bandwidth times BusFactor.
func (t hypercube) Bandwidth(c collectives.Counts, eltSize int, sec float64, nranks int) (float64, float64) {
	return collectives.ScaledBw(c, eltSize, sec, int64(max(nranks, 1)-1), t.BusFactor(nranks))
}

// InitData and Check are all-gather's: slot r of every rank's output must hold rank r's
// input once the exchanges are done.
func (hypercube) InitData(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	return allgather.AllGather{}.InitData(v, a, seed)
}

func (hypercube) Check(v *collectives.Verifier, a *collectives.LaunchArgs, seed uint32) error {
	return allgather.AllGather{}.Check(v, a, seed)
}
