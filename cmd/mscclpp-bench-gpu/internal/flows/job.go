// Package flows runs a GPU subcommand's plan on a rank that has joined the job: a
// collective's sweep (through sweep), pingpong, and acceptance. It reaches the GPU only
// through device.GPU and channels.Mesh, so its flows are tested on the CPU with the
// stand-in GPU (internal/device/devicetest); the worker package joins the job on a real
// GPU and hands the rank over here.
package flows

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/progress"
	"github.com/mscclpp-bench/mscclpp-bench/internal/safefile"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// Job is a joined rank with its GPU and mesh, and the plan it runs.
type Job struct {
	Plan     *cli.Plan
	Common   *cli.Common // Plan.Common(): the options every subcommand has
	Version  string
	Out      io.Writer // rank 0's stdout; io.Discard elsewhere
	Boot     *bootstrap.TCPBootstrap
	GPU      device.GPU
	Mesh     *channels.Mesh
	Stream   device.Stream
	Devices  []results.Device
	Hostname string
	Launcher string // "mpirun", "env", "torchrun", "pytorch-env", "slurm" or "single"
	Started  time.Time
	SetupDur time.Duration
	SetupMem int64 // GPU memory the mesh and stream took (-M's "Initialization")
	// SMs is this rank's share of its GPU's multiprocessors: ranks that share a GPU split
	// them, so that their kernels, which wait for each other, can all be resident at once.
	SMs int
	// ShareNotes are the header lines that say how ranks share GPUs (gpushare.Notes).
	ShareNotes []string
	// Sharing is how the ranks share GPUs (collectives.GPUSharing): some GPU serves several
	// ranks (gpushare.Shared), and, under MPS with the driver's default work queues
	// (gpushare.DefaultQueuesUnderMPS) where some pair talks over a network transport,
	// MPSNetwork (the algorithms known to hang so are refused).
	Sharing collectives.GPUSharing

	// HostBarrier is a shared-memory barrier of all ranks when they share one host, else nil.
	HostBarrier *bootstrap.HostBarrier
}

// Rank returns this process's rank.
func (j *Job) Rank() int { return j.Boot.Rank() }

// Barrier returns the fastest barrier of all ranks: the host barrier when there is one.
func (j *Job) Barrier() func() error {
	if j.HostBarrier != nil {
		return j.HostBarrier.Wait
	}
	return j.Boot.Barrier
}

// Header returns the report header common to every subcommand.
func (j *Job) Header(collective string) results.Header {
	c := j.Common
	return results.Header{
		Program: "mscclpp-bench", Version: j.Version, Collective: collective,
		NThreads: 1, NGPUs: 1, MinBytes: c.MinBytes, MaxBytes: c.MaxBytes,
		StepFactor: c.StepFactor, StepBytes: c.StepBytes, Warmup: c.Warmup, Iters: c.Iters,
		AggIters: 1, Check: c.Check, Devices: j.Devices,
		Extra: "launcher=" + j.Launcher + " " + channels.DescribeTransports(j.Mesh.Endpoints, j.Mesh.PairTransport),
		Notes: append([]string(nil), j.ShareNotes...),
	}
}

// WriteJSON writes the report to the -J file (rank 0 only).
func (j *Job) WriteJSON(r *results.Report) error {
	path := j.Common.JSONPath
	if path == "" || j.Rank() != 0 {
		return nil
	}
	err := safefile.Write(path, func(w io.Writer) error { return results.WriteJSON(w, r) })
	if err != nil {
		return fmt.Errorf("write JSON %s: %w", path, err)
	}
	return nil
}

// Meter returns rank 0's progress line on stderr, or nil (no progress) on other ranks, when
// --progress is off, or in auto mode away from a terminal.
func (j *Job) Meter() *progress.Meter {
	on, err := progress.Enabled(j.Common.Progress)
	return progress.New(os.Stderr, err == nil && on && j.Rank() == 0)
}
