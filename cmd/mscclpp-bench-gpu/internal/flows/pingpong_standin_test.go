package flows

import (
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
)

// TestPingPongOneRankRefused: pingpong's flow on a job of one rank prints nothing and
// exits 1 with one line that says how to launch it.
func TestPingPongOneRankRefused(t *testing.T) {
	jobs := standinJob(t, 1, nil)
	o := runPlan(t, jobs, planOf(t, "pingpong", "--progress", "off"))
	if o.codes[0] != cli.ExitFailure || o.stdout != "" {
		t.Fatalf("exit %d, stdout %q; want exit 1 and no report", o.codes[0], o.stdout)
	}
	if err := oneLine(o.stderr[0]); err != nil {
		t.Error(err)
	}
	if want := "pingpong needs at least 2 ranks, this job has 1"; !strings.Contains(o.stderr[0], want) {
		t.Errorf("stderr %q, want it to say %q", o.stderr[0], want)
	}
}
