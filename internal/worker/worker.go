// Package worker runs GPU subcommands inside the GPU worker binary: it joins the job
// (MPI, environment variables, or a single process), picks this rank's GPU from the ranks
// that share its host, builds the channel mesh and hands over to the benchmark. It is the
// only package besides internal/gpu and internal/mpi that needs a GPU and libmpi, and it is
// linked only into cmd/mscclpp-bench-gpu.
package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/gpu"
	"github.com/mscclpp-bench/mscclpp-bench/internal/ibverbs"
	"github.com/mscclpp-bench/mscclpp-bench/internal/mpi"
	"github.com/mscclpp-bench/mscclpp-bench/internal/progress"
	"github.com/mscclpp-bench/mscclpp-bench/kernels"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// Job is a joined rank with its GPU and mesh.
type Job struct {
	Cfg      *cli.Config
	Version  string
	Out      io.Writer // rank 0's stdout; io.Discard elsewhere
	Boot     *bootstrap.TcpBootstrap
	GPU      *gpu.GPU
	Mesh     *channels.Mesh
	Stream   device.Stream
	Devices  []results.Device
	Hostname string
	Launcher string // "mpirun", "env", "torchrun", "pytorch-env", "slurm" or "single"
	usedMPI  bool
	Started  time.Time
	SetupDur time.Duration
	// SMs is this rank's share of its GPU's multiprocessors: ranks that share a GPU split
	// them, so that their kernels, which wait for each other, can all be resident at once.
	SMs int
}

// Rank returns this process's rank.
func (j *Job) Rank() int { return j.Boot.Rank() }

// Run is the worker's cli.Runner.
func Run(version string) cli.Runner {
	return func(ctx context.Context, cfg *cli.Config) error {
		if ctx == nil {
			ctx = context.Background()
		}
		j, err := Join(ctx, cfg, version)
		if err != nil {
			return err
		}
		runErr := dispatch(j)
		closeErr := j.Close(runErr == nil)
		if runErr != nil {
			return runErr
		}
		return closeErr
	}
}

// Join makes this process a rank of the job: bootstrap, GPU, mesh and stream.
func Join(ctx context.Context, cfg *cli.Config, version string) (*Job, error) {
	j := &Job{Cfg: cfg, Version: version, Out: io.Discard, Started: time.Now()}
	opts := bootstrap.Options{Timeout: cfg.BootstrapTimeout}
	if opts.Timeout == 0 {
		opts.Timeout = bootstrap.DefaultTimeout() // a bad $MSCCLPP_BENCH_BOOTSTRAP_TIMEOUT fails in New
	}
	var err error
	switch launch, ok, envErr := bootstrap.DetectLaunch(); {
	case mpi.Launched():
		if _, _, err = mpi.Init(); err != nil {
			return nil, err
		}
		j.usedMPI, j.Launcher = true, "mpirun"
		if j.Boot, err = mpi.Bootstrap(ctx, opts, rootAddr(cfg.BootstrapAddr)); err != nil {
			return nil, err
		}
	case envErr != nil:
		return nil, envErr
	case ok:
		j.Launcher = launch.Launcher
		if j.Boot, err = bootstrap.New(launch.Rank, launch.NRanks, opts); err != nil {
			return nil, err
		}
		if err = j.Boot.InitializeAddr(ctx, launch.Root, ""); err != nil {
			return nil, err
		}
	default: // one process, one rank
		j.Launcher = "single"
		if j.Boot, err = bootstrap.New(0, 1, opts); err != nil {
			return nil, err
		}
		id, err := j.Boot.CreateUniqueID("127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		if err = j.Boot.Initialize(ctx, id); err != nil {
			return nil, err
		}
	}
	if j.Rank() == 0 {
		j.Out = os.Stdout
	}
	if j.Hostname, err = os.Hostname(); err != nil {
		return nil, fmt.Errorf("rank %d: hostname: %w", j.Rank(), err)
	}
	local, localSize, err := j.Boot.LocalRank(j.Hostname)
	if err != nil {
		return nil, err
	}
	n, err := gpu.DeviceCount()
	if err != nil {
		return nil, fmt.Errorf("rank %d: %w", j.Rank(), err)
	}
	if n == 0 {
		return nil, fmt.Errorf("rank %d on %s: no GPU is visible", j.Rank(), j.Hostname)
	}
	images, err := kernels.Images()
	if err != nil {
		return nil, err
	}
	if j.GPU, err = gpu.Open(local%n, images); err != nil {
		return nil, fmt.Errorf("rank %d on %s: %w", j.Rank(), j.Hostname, err)
	}
	perGPU := (localSize + n - 1) / n
	j.SMs = max(j.GPU.Info().SMs/perGPU, 1)
	mode, err := channels.ParseMode(cfg.Transport)
	if err != nil {
		return nil, err
	}
	meshOpts := channels.MeshOptions{Mode: mode, Timeout: cfg.Timeout, Hostname: j.Hostname,
		HostID: os.Getenv(channels.EnvHostID), Verbs: ibverbs.Library{}}
	if j.Mesh, err = channels.NewMesh(j.GPU, j.Boot, meshOpts); err != nil {
		if errors.Is(err, channels.ErrNoHCA) {
			return nil, cli.Usagef("rank %d: %v", j.Rank(), err)
		}
		return nil, fmt.Errorf("rank %d: %w", j.Rank(), err)
	}
	if j.Stream, err = j.GPU.NewStream(); err != nil {
		return nil, err
	}
	if err := j.gatherDevices(); err != nil {
		return nil, err
	}
	j.SetupDur = time.Since(j.Started)
	return j, nil
}

// gatherDevices collects every rank's device line for the report.
func (j *Job) gatherDevices() error {
	info := j.GPU.Info()
	mine, _ := json.Marshal(results.Device{Rank: j.Rank(), Pid: os.Getpid(), Hostname: j.Hostname, Device: info.Ordinal, BusID: shortBusID(info.BusID), Name: info.Name})
	all, err := j.Boot.AllGather(mine)
	if err != nil {
		return err
	}
	j.Devices = make([]results.Device, len(all))
	for r, b := range all {
		if err := json.Unmarshal(b, &j.Devices[r]); err != nil {
			return fmt.Errorf("device info of rank %d: %w", r, err)
		}
	}
	return nil
}

// shortBusID turns "0000:00:06.0" into nccl-tests' "0000:00:06".
func shortBusID(id string) string {
	if len(id) > 2 && id[len(id)-2] == '.' {
		return id[:len(id)-2]
	}
	return id
}

// Close tears down in order; on success ranks first meet at a barrier so nobody frees
// memory a peer may still read.
func (j *Job) Close(ok bool) error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	if ok && j.Boot != nil {
		keep(j.Boot.Barrier())
	}
	if j.Mesh != nil {
		keep(j.Mesh.Close())
	}
	if j.GPU != nil {
		if j.Stream != 0 {
			keep(j.GPU.DestroyStream(j.Stream))
		}
		keep(j.GPU.Close())
	}
	if j.Boot != nil {
		keep(j.Boot.Close())
	}
	if j.usedMPI {
		mpi.Finalize()
	}
	return first
}

// Header returns the report header common to every subcommand.
func (j *Job) Header(collective string) results.Header {
	c := j.Cfg
	return results.Header{
		Program: "mscclpp-bench", Version: j.Version, Collective: collective,
		NThreads: 1, NGpus: 1, MinBytes: c.MinBytes, MaxBytes: c.MaxBytes,
		StepFactor: c.StepFactor, StepBytes: c.StepBytes, Warmup: c.Warmup, Iters: c.Iters,
		AggIters: max(c.AggIters, 1), Check: c.Check, Graph: c.Graph, Devices: j.Devices,
		Extra: "launcher=" + j.Launcher + " " + channels.DescribeTransports(j.Mesh.Endpoints, j.Mesh.PairTransport),
	}
}

// rootAddr is the bootstrap root address under MPI: the one given, else the interface
// that $MSCCLPP_BENCH_SOCKET_IFNAME picks (any port), else "" (automatic).
func rootAddr(given string) string {
	if given != "" || os.Getenv(bootstrap.SocketIfnameEnv) == "" {
		return given
	}
	if name, _, err := bootstrap.MatchInterface(os.Getenv(bootstrap.SocketIfnameEnv)); err == nil {
		return name + ":0"
	}
	return given // CreateUniqueID then picks; the data sockets report the bad variable
}

// WriteJSON writes the report to the -J file (rank 0 only).
func (j *Job) WriteJSON(r *results.Report) error {
	if j.Cfg.JSONPath == "" || j.Rank() != 0 {
		return nil
	}
	f, err := os.Create(j.Cfg.JSONPath)
	if err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	if err := results.WriteJSON(f, r); err != nil {
		f.Close()
		return fmt.Errorf("write JSON %s: %w", j.Cfg.JSONPath, err)
	}
	return f.Close()
}

// Meter returns rank 0's progress line on stderr, or nil (no progress) on other ranks, when
// --progress is off, or in auto mode away from a terminal.
func (j *Job) Meter() *progress.Meter {
	on, err := progress.Enabled(j.Cfg.Progress)
	return progress.New(os.Stderr, err == nil && on && j.Rank() == 0)
}
