//go:build gpu

package gputest

import (
	"io"
	"os"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/cmd/mscclpp-bench-gpu/internal/sweep"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// The injected fault. "faulty" exists only in this test binary: it runs the real rsag
// all-reduce and then, on rank 1, overwrites element 0 of the output with 0xff bytes (a
// NaN for float, never the sum), on the same stream, so before the harness's check. The
// production path is unchanged: no kernel, flag or environment variable knows of it.
const faultyNumber = 901

func init() {
	real, err := collectives.Find("allreduce", "rsag")
	if err != nil {
		panic(err)
	}
	collectives.Register(&collectives.Algorithm{
		Collective: "allreduce", Name: "faulty", Number: faultyNumber,
		Doc:      "gputest only: rsag, then one wrong element on rank 1",
		MinBytes: real.MinBytes, MaxBytes: real.MaxBytes, MinRanks: real.MinRanks, MaxRanks: real.MaxRanks, Types: real.Types,
		New: func(env *collectives.Env) (collectives.Instance, error) {
			inst, err := real.New(env)
			return &faulty{Instance: inst, env: env}, err
		},
	})
}

type faulty struct {
	collectives.Instance
	env *collectives.Env
}

func (f *faulty) Launch(a *collectives.LaunchArgs, s device.Stream) error {
	if err := f.Instance.Launch(a, s); err != nil {
		return err
	}
	if f.env.Rank != 1 || a.Count == 0 {
		return nil
	}
	return f.env.GPU.MemsetAsync(f.env.OutPtr(a, f.env.Rank), 0xff, uint64(a.Type.Size), s)
}

// runSweep runs an allreduce sweep of 1 MiB float sum with kernel k through the worker's
// glue, printing the report on rank 0's stdout (scripts/gpu-test.sh reads its #wrong
// columns), and returns rank 0's report (nil elsewhere) and the run's error.
func runSweep(t *testing.T, k string) (*results.Report, error) {
	t.Helper()
	sel, err := cli.ParseSelection("allreduce", k)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &cli.CollectiveOptions{Common: cli.Common{MinBytes: 1 << 20, MaxBytes: 1 << 20, StepFactor: 2, Iters: 2, Warmup: 1, Check: 1, Timeout: 20 * time.Second},
		Collective: "allreduce", AggIters: 1, Average: 1, Cycles: 1, Datatypes: []string{"float"}, Ops: []string{"sum"}, Kernel: sel}
	var out io.Writer = io.Discard
	if job.Rank() == 0 {
		out = os.Stdout
	}
	var rep *results.Report
	err = sweep.Run(sweep.Rank{
		Cfg: cfg, GPU: job.GPU, Mesh: job.Mesh, Stream: job.Stream, SMs: job.SMs, Out: out,
		Header: func(name string) results.Header { j := *job.Job; j.Common = &cfg.Common; return j.Header(name) },
		WriteJSON: func(r *results.Report) error {
			if job.Rank() == 0 {
				rep = r
			}
			return nil
		},
	})
	return rep, err
}

// TestInjectedWrongIsReported: a collective that gets one element wrong on one rank makes
// the run fail, naming the count (summed over ranks: 1 per placement), and the report's
// #wrong columns say 1; the same sweep with the real algorithm says 0 and passes.
func TestInjectedWrongIsReported(t *testing.T) {
	needCUDAIPC(t) // rsag runs over memory channels
	rep, err := runSweep(t, "rsag")
	if err != nil {
		t.Fatalf("rsag: %v", err)
	}
	checkWrong(t, "rsag", rep, 0)

	rep, err = runSweep(t, "faulty")
	if err == nil || err.Error() != "allreduce: 2 wrong elements" {
		t.Fatalf("faulty: error %v, want %q", err, "allreduce: 2 wrong elements")
	}
	checkWrong(t, "faulty", rep, 1)
}

// checkWrong checks rank 0's report: every placement of every row has want wrong elements.
func checkWrong(t *testing.T, k string, rep *results.Report, want int64) {
	t.Helper()
	if job.Rank() != 0 {
		return
	}
	if rep == nil || len(rep.Rows) != 1 {
		t.Fatalf("%s: report %+v, want one row", k, rep)
	}
	for _, p := range []*results.Placement{rep.Rows[0].OutOfPlace, rep.Rows[0].InPlace} {
		if p == nil || p.Wrong != want {
			t.Errorf("%s: placement %+v, want %d wrong", k, p, want)
		}
	}
}
