// Command mscclpp-bench is the front end: it parses and checks the command line and runs
// everything that needs no GPU itself (help, version, compare, plot). GPU subcommands are
// handed to the worker binary mscclpp-bench-gpu, installed beside this one, by exec: the
// process (and so its MPI environment and pid) stays the same. This binary links neither
// libcuda nor libmpi, so it runs on any Linux machine.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/internal/gpushare"
	"github.com/mscclpp-bench/mscclpp-bench/internal/version"
)

// WorkerEnv names an environment variable that overrides where the worker binary is.
const WorkerEnv = "MSCCLPP_BENCH_GPU_WORKER"

// execMarkEnv is set by the front end just before it execs the worker, to its pid (which
// exec keeps) and the path it execs. A front end that starts and finds its own pid there was
// exec'd as the worker: the worker path names the front end itself (a link, a copy, an
// *_perf name), which would exec itself again forever. The real worker drops the mark.
const execMarkEnv = cli.FrontEndExecEnv

func main() {
	if path, ok := execedAsWorker(os.Getenv(execMarkEnv), os.Getpid()); ok {
		fmt.Fprintf(os.Stderr, "mscclpp-bench: the GPU worker %s is this front end (mscclpp-bench), not the worker: point %s, or the mscclpp-bench-gpu beside mscclpp-bench, at the worker binary that make builds (bin/mscclpp-bench-gpu)\n",
			path, WorkerEnv)
		os.Exit(cli.ExitUsage)
	}
	app := cli.App{Name: "mscclpp-bench", Version: version.String(), Run: execWorker, Extra: extraCommands}
	os.Exit(cli.MainArgv(app, os.Args))
}

// execWorker replaces this process with the GPU worker, same environment, with the plan
// this front end resolved from the command line in cli.PlanEnv: the worker runs it and
// does not parse the command line again. Where the environment leaves
// CUDA_DEVICE_MAX_CONNECTIONS unset and no MPS daemon serves the rank, the worker gets
// gpushare.WorkerQueues hardware queues. argv goes along unchanged (ps shows the command
// as typed, all_reduce_perf included).
func execWorker(_ context.Context, plan *cli.Plan) error {
	path, err := workerPath()
	if err != nil {
		return err
	}
	encoded, err := cli.EncodePlan(plan)
	if err != nil {
		return err
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, execMarkEnv+"=") || strings.HasPrefix(kv, cli.PlanEnv+"=")
	})
	env = append(env, execMarkEnv+"="+execMark(os.Getpid(), path), cli.PlanEnv+"="+encoded)
	if kv := gpushare.QueuesEnv(os.Getenv); kv != "" {
		env = append(env, kv) // read by the driver at start-up, so set before the exec
	}
	if err := syscall.Exec(path, os.Args, env); err != nil {
		return fmt.Errorf("start GPU worker %s: %w", path, err)
	}
	return nil // not reached
}

func workerPath() (string, error) {
	if p := os.Getenv(WorkerEnv); p != "" {
		return p, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find GPU worker: %w", err)
	}
	p := filepath.Join(filepath.Dir(self), "mscclpp-bench-gpu")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("GPU subcommands need the worker binary %s, which is missing (build it with make, or set %s)", p, WorkerEnv)
	}
	return p, nil
}

// execMark is the value of execMarkEnv for a front end of pid execing path.
func execMark(pid int, path string) string { return strconv.Itoa(pid) + ":" + path }

// execedAsWorker reports whether mark (execMarkEnv's value) was set by this very process,
// pid, before an exec (so this front end was started as the worker), and the path it was
// started as. A mark left by another process (a parent front end, say) does not count.
func execedAsWorker(mark string, pid int) (string, bool) {
	p, path, ok := strings.Cut(mark, ":")
	if !ok {
		return "", false
	}
	n, err := strconv.Atoi(p)
	return path, err == nil && n == pid
}
