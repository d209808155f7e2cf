// Command mscclpp-bench-gpu is the GPU worker: the same command line as mscclpp-bench, run
// on this rank's GPU. mscclpp-bench execs it for GPU subcommands; it can also be launched
// directly under mpirun. It links libcuda and libmpi.
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
	os.Unsetenv(cli.FrontEndExecEnv) // the front end's mark is for a front end, not for us
	app := cli.App{Name: "mscclpp-bench", Version: version.String(), Run: worker.Run(version.String())}
	os.Exit(cli.MainArgv(app, os.Args))
}
