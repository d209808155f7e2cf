package harness

import (
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/collectivestest"
)

// TestOpLabelAsNCCLTests: the redop column of every collective without an operator reads
// as nccl-tests 2.19.6 prints it (shared/baselines/all-collectives/*_G10_*.txt).
func TestOpLabelAsNCCLTests(t *testing.T) {
	for name, want := range map[string]string{
		"allgather": "none", "alltoall": "none", "alltoallv": "none", "broadcast": "none",
		"gather": "none", "scatter": "none", "hypercube": "", "sendrecv": "sum",
	} {
		if got := collectives.OpLabel(collectivestest.MustLookup(t, name), collectives.OpNone); got != want {
			t.Errorf("%s: redop column %q, nccl-tests prints %q", name, got, want)
		}
	}
}
