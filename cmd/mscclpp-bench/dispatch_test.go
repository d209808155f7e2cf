package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
)

// fakeWorkerEnv makes this test binary act as the GPU worker: it takes the front end's
// plan as the worker does (cli.WorkerMain) and prints it instead of running it.
const fakeWorkerEnv = "MSCCLPP_BENCH_TEST_FAKE_WORKER"

// printQueuesEnv makes the fake worker print the CUDA_DEVICE_MAX_CONNECTIONS it got.
const printQueuesEnv = "MSCCLPP_BENCH_TEST_PRINT_QUEUES"

func TestMain(m *testing.M) {
	if os.Getenv(fakeWorkerEnv) == "1" {
		planned := os.Getenv(cli.PlanEnv) != ""
		app := cli.App{Name: "mscclpp-bench", Version: "test", Run: func(_ context.Context, p *cli.Plan) error {
			c := p.Collective
			if os.Getenv(printQueuesEnv) == "1" {
				fmt.Printf("queues=%q\n", os.Getenv("CUDA_DEVICE_MAX_CONNECTIONS"))
				return nil
			}
			fmt.Printf("worker argv0=%s planned=%v command=%s args=%s iters=%d per_iter=%v\n",
				filepath.Base(os.Args[0]), planned, p.Command, strings.Join(p.Args, " "), c.Iters, c.NCCLTests.PerIter)
			return nil
		}}
		os.Exit(cli.WorkerMain(app, os.Args))
	}
	os.Exit(m.Run())
}

// TestNCCLTestsNames builds the front binary, links every nccl-tests program name to it
// as make does, and runs each: a built collective reaches the worker (this test binary,
// standing in for it) as that collective's subcommand with nccl-tests' flags, its argv[0]
// kept through the exec; one not built yet exits 2 with one line saying so.
func TestNCCLTestsNames(t *testing.T) {
	dir := filepath.Dir(buildFront(t))
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	built := 0
	for name, sub := range cli.NCCLTestsBinaries {
		link := filepath.Join(dir, name)
		if err := os.Symlink("mscclpp-bench", link); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(link, "-b", "8", "-e", "1M", "-f", "4", "-n", "7", "-I", "1", "-C", "1", "-S", "1", "-M", "1")
		cmd.Env = []string{WorkerEnv + "=" + self, fakeWorkerEnv + "=1"}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, lerr := collectives.Lookup(sub); lerr != nil {
			want := fmt.Sprintf("mscclpp-bench: %s: the %s collective is not built in this mscclpp-bench yet", name, sub)
			if code != 2 || !strings.HasPrefix(string(out), want) || strings.Count(string(out), "\n") != 1 {
				t.Errorf("%s (not built): exit %d, output %q; want exit 2 and one line %q...", name, code, out, want)
			}
			continue
		}
		built++
		want := fmt.Sprintf("worker argv0=%s planned=true command=%s args=%s -b 8 -e 1M -f 4 -n 7 -I 1 -C 1 -S 1 -M 1 iters=7 per_iter=true\n", name, sub, link)
		if code != 0 || string(out) != want {
			t.Errorf("%s: exit %d, output %q; want exit 0 and %q", name, code, out, want)
		}
		help, _ := exec.Command(link, "--help").CombinedOutput()
		for _, flag := range []string{"--per_iter_timing", "--report_cputime", "--run_cycles", "--root", "--stream_null", "--unalign"} {
			if !strings.Contains(string(help), flag) {
				t.Errorf("%s --help does not list %s:\n%s", name, flag, help)
			}
		}
	}
	if built == 0 {
		t.Error("no nccl-tests name runs a built collective")
	}
}

// TestWorkerQueues: the worker starts with 32 hardware queues where the environment sets
// none and no MPS daemon listens, and with the environment's own number otherwise.
func TestWorkerQueues(t *testing.T) {
	front := buildFront(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	noMPS := t.TempDir()
	for _, c := range []struct {
		env  []string
		want string
	}{
		{nil, `queues="32"`},
		{[]string{"CUDA_DEVICE_MAX_CONNECTIONS=4"}, `queues="4"`},
	} {
		cmd := exec.Command(front, "allreduce", "-b", "8", "-e", "8")
		cmd.Env = append([]string{WorkerEnv + "=" + self, fakeWorkerEnv + "=1", printQueuesEnv + "=1",
			"CUDA_MPS_PIPE_DIRECTORY=" + noMPS}, c.env...)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != c.want {
			t.Errorf("env %v: %v, output %q; want %s", c.env, err, out, c.want)
		}
	}
}

// TestWorkerIsFrontEnd: a worker path that is the front end itself (MSCCLPP_BENCH_GPU_WORKER
// naming it, or an nccl-tests link to it, or a copy of it installed as mscclpp-bench-gpu
// beside it) is refused at once with one line and exit 2, where the front end used to exec
// itself forever.
func TestWorkerIsFrontEnd(t *testing.T) {
	front := buildFront(t)
	dir := filepath.Dir(front)
	link := filepath.Join(dir, "all_reduce_perf")
	if err := os.Symlink("mscclpp-bench", link); err != nil {
		t.Fatal(err)
	}
	// A second folder holding a copy of the front end under the worker's name.
	copyDir := t.TempDir()
	b, err := os.ReadFile(front)
	if err != nil {
		t.Fatal(err)
	}
	copyFront := filepath.Join(copyDir, "mscclpp-bench")
	for _, p := range []string{copyFront, filepath.Join(copyDir, "mscclpp-bench-gpu")} {
		if err := os.WriteFile(p, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, bin, worker string
	}{
		{"worker variable names the front end", front, front},
		{"worker variable names an nccl-tests link", front, link},
		{"started as a link, worker variable names the front end", link, front},
		{"a copy of the front end beside it", copyFront, ""},
		{"a relative worker path", front, "./mscclpp-bench"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			args := []string{"allreduce", "-b", "8", "-e", "8"}
			if tt.bin == link {
				args = args[1:]
			}
			cmd := exec.CommandContext(ctx, tt.bin, args...)
			cmd.Dir = dir
			cmd.Env = []string{}
			if tt.worker != "" {
				cmd.Env = []string{WorkerEnv + "=" + tt.worker}
			}
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("still running after 10 s (it execs itself): output %.200q", out)
			}
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			const want = "is this front end (mscclpp-bench), not the worker"
			if code != 2 || strings.Count(string(out), "\n") != 1 || !strings.Contains(string(out), want) {
				t.Errorf("exit %d, output %q; want exit 2 and one line saying %q", code, out, want)
			}
		})
	}
}

// TestExecedAsWorker: only a mark with this process's own pid means it was exec'd as the
// worker; a mark from another process (a front end that started this one) or junk does not.
func TestExecedAsWorker(t *testing.T) {
	tests := []struct {
		mark string
		pid  int
		want bool
	}{
		{execMark(42, "/bin/x"), 42, true},
		{execMark(41, "/bin/x"), 42, false},
		{"", 42, false},
		{"42", 42, false},
		{"x:/bin/x", 42, false},
		{"42:", 42, true},
	}
	for _, tt := range tests {
		if _, got := execedAsWorker(tt.mark, tt.pid); got != tt.want {
			t.Errorf("execedAsWorker(%q, %d) = %v; want %v", tt.mark, tt.pid, got, tt.want)
		}
	}
}
