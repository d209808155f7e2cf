// Command mscclpp-bench-gpu is the GPU worker: it runs a GPU subcommand on this rank's GPU.
// mscclpp-bench execs it with the plan it resolved from the command line (cli.PlanEnv),
// which it runs without parsing the command line again; launched directly under mpirun,
// it takes the same command line as mscclpp-bench and parses it itself. It links libcuda
// and libmpi.
package main

import (
	"os"
	"runtime"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/cmd/mscclpp-bench-gpu/internal/worker"
	"github.com/mscclpp-bench/mscclpp-bench/internal/version"
)

func init() {
	// MPI and the CUDA context are used from the main goroutine: keep it on one OS thread.
	runtime.LockOSThread()
}

func main() {
	app := cli.App{Name: "mscclpp-bench", Version: version.String(), Run: worker.Run(version.String())}
	os.Exit(cli.WorkerMain(app, os.Args))
}
