package flows

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap/bootstraptest"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// standinJob is n ranks joined over loopback bootstraps, each with a stand-in GPU (whose
// kernels are those given) and a mesh, as worker.Join leaves them but for the plan.
func standinJob(t *testing.T, n int, kernels map[string]devicetest.Kernel) []*Job {
	t.Helper()
	// Each rank's proxy spins on a locked thread once it serves port channels, as the
	// worker's does (which raises GOMAXPROCS for it); here all ranks share one process, so
	// give every rank's proxy and kernel a P, or a kernel waits for preemption (10 ms).
	prev := runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 2*n+2))
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	space := devicetest.NewSpace(kernels)
	boots := bootstraptest.Loopback(t, n, 30*time.Second)
	jobs := make([]*Job, n)
	devices := make([]results.Device, n)
	for r := range devices {
		devices[r] = results.Device{Rank: r, Hostname: "node", Device: r, Name: "stand-in"}
	}
	errs := bounded.Ranks(t, n, 30*time.Second, func(r int) error {
		g := space.NewGPU(r)
		m, err := channels.NewMesh(g, boots[r], channels.MeshOptions{Mode: cudaipc.Mode, Timeout: 10 * time.Second, Hostname: "node"})
		jobs[r] = &Job{Version: "test", Out: io.Discard, Boot: boots[r], GPU: g, Mesh: m, Stream: 1, Devices: devices,
			Hostname: "node", Launcher: "env", Started: time.Now(), SMs: 4}
		return err
	})
	t.Cleanup(func() {
		for _, j := range jobs {
			if j != nil && j.Mesh != nil {
				j.Mesh.Close()
			}
		}
	})
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return jobs
}

// planOf parses args as the front end does and returns the plan it would hand the worker,
// after a round trip through the worker's decoder.
func planOf(t *testing.T, args ...string) string {
	t.Helper()
	var plan *cli.Plan
	var stderr bytes.Buffer
	code := cli.Main(cli.App{Name: "mscclpp-bench", Version: "test", Stderr: &stderr,
		Run: func(_ context.Context, p *cli.Plan) error { plan = p; return nil }}, args)
	if code != cli.ExitOK || plan == nil {
		t.Fatalf("%v: exit %d, stderr %q", args, code, stderr.String())
	}
	enc, err := cli.EncodePlan(plan)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// ranOutcome is what every rank's worker gave for one plan: exit codes, rank 0's standard
// output and every rank's standard error.
type ranOutcome struct {
	codes  []int
	stdout string
	stderr []string
}

// runPlan runs the encoded plan on every rank of jobs as the worker does (cli.RunPlan
// decodes it; Dispatch runs it), rank 0 printing.
func runPlan(t *testing.T, jobs []*Job, encoded string) ranOutcome {
	t.Helper()
	o := ranOutcome{codes: make([]int, len(jobs)), stderr: make([]string, len(jobs))}
	var stdout bytes.Buffer
	var mu sync.Mutex
	errs := bounded.Ranks(t, len(jobs), 60*time.Second, func(r int) error {
		var out, errOut bytes.Buffer
		j := jobs[r]
		app := cli.App{Name: "mscclpp-bench", Version: "test", Stdout: &out, Stderr: &errOut, Run: func(ctx context.Context, p *cli.Plan) error {
			j.Plan, j.Common = p, p.Common()
			if r == 0 {
				j.Out = cli.Stdout(ctx)
			}
			return Dispatch(j)
		}}
		code := cli.RunPlan(app, encoded)
		mu.Lock()
		defer mu.Unlock()
		o.codes[r], o.stderr[r] = code, errOut.String()
		if r == 0 {
			stdout.Write(out.Bytes())
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	o.stdout = stdout.String()
	return o
}

// oneLine says whether s is exactly one line of mscclpp-bench's error format.
func oneLine(s string) error {
	const prefix = "mscclpp-bench: "
	if len(s) <= len(prefix) || s[:len(prefix)] != prefix || bytes.Count([]byte(s), []byte("\n")) != 1 || s[len(s)-1] != '\n' {
		return fmt.Errorf("stderr %q is not one line %q...", s, prefix)
	}
	return nil
}
