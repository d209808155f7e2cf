package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
)

// fakeWorkerEnv makes this test binary act as the GPU worker: it parses its argv as the
// worker does and prints what it would run instead of running it.
const fakeWorkerEnv = "MSCCLPP_BENCH_TEST_FAKE_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(fakeWorkerEnv) == "1" {
		app := cli.App{Name: "mscclpp-bench", Version: "test", Run: func(_ context.Context, c *cli.Config) error {
			fmt.Printf("worker argv0=%s command=%s args=%s iters=%d per_iter=%v\n",
				filepath.Base(os.Args[0]), c.Command, strings.Join(c.Args, " "), c.Iters, c.NCCLTests.PerIter)
			return nil
		}}
		os.Exit(cli.MainArgv(app, os.Args))
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
		want := fmt.Sprintf("worker argv0=%s command=%s args=%s -b 8 -e 1M -f 4 -n 7 -I 1 -C 1 -S 1 -M 1 iters=7 per_iter=true\n", name, sub, link)
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
