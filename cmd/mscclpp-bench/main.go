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
	"syscall"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/internal/version"
)

// WorkerEnv names an environment variable that overrides where the worker binary is.
const WorkerEnv = "MSCCLPP_BENCH_GPU_WORKER"

func main() {
	app := cli.App{Name: "mscclpp-bench", Version: version.String(), Run: execWorker, Extra: extraCommands}
	os.Exit(cli.Main(app, os.Args[1:]))
}

// execWorker replaces this process with the GPU worker, same arguments and environment.
func execWorker(_ context.Context, _ *cli.Config) error {
	path, err := workerPath()
	if err != nil {
		return err
	}
	argv := append([]string{path}, os.Args[1:]...)
	if err := syscall.Exec(path, argv, os.Environ()); err != nil {
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
