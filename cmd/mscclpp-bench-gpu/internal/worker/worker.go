// Package worker runs GPU subcommands inside the GPU worker binary: it joins the job
// (MPI, environment variables, or a single process), picks this rank's GPU from the ranks
// that share its host, builds the channel mesh and hands the joined rank and its plan to
// flows, which runs it. It is the only package besides internal/gpu and internal/mpi that
// needs a GPU and libmpi, and it is linked only into cmd/mscclpp-bench-gpu.
package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/bootstrap/mpi"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ib"
	_ "github.com/mscclpp-bench/mscclpp-bench/channels/transports" // the worker connects over every transport
	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/cmd/mscclpp-bench-gpu/internal/flows"
	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
	"github.com/mscclpp-bench/mscclpp-bench/internal/gpu"
	"github.com/mscclpp-bench/mscclpp-bench/internal/gpushare"
	"github.com/mscclpp-bench/mscclpp-bench/internal/ibverbs"
	"github.com/mscclpp-bench/mscclpp-bench/kernels"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// minProcs is the fewest Go Ps a rank runs with: the proxy, the main goroutine, and the
// bootstrap's goroutines.
const minProcs = 4

// Job is a joined rank: what flows runs on, and what only joining and closing need.
type Job struct {
	*flows.Job
	GPU     *gpu.GPU // the same GPU as flows.Job's, for Close
	usedMPI bool
	mps     bool // an MPS control daemon serves this rank (gpushare.MPSOn)

	cpus  affinity.Set       // the CPUs this rank was bound to at start
	proxy affinity.Placement // where its proxy thread runs
	// helpers: where its Ethernet sender and receiver threads run (empty: its own CPUs)
	helpers affinity.Set
	// threadCPUs is how many CPUs the helpers of this machine's hostRanks ranks share
	// (affinity.ThreadCPUs)
	threadCPUs, hostRanks int
}

// Run is the worker's cli.Runner.
func Run(version string) cli.Runner {
	return func(ctx context.Context, plan *cli.Plan) error {
		if ctx == nil {
			ctx = context.Background()
		}
		// Go sizes GOMAXPROCS from the CPU binding: 1 under mpirun's default. The proxy
		// goroutine spins on a P of its own, so the main goroutine and the bootstrap's
		// readers need more, or they wait for the proxy's preemption (every 10 ms).
		if runtime.GOMAXPROCS(0) < minProcs {
			runtime.GOMAXPROCS(minProcs)
		}
		j, err := Join(ctx, plan, version)
		if err != nil {
			return err
		}
		stop, err := startProfile(plan.Common().Env.CPUProfile, j.Rank())
		if err != nil {
			_ = j.Close(false)
			return err
		}
		runErr := flows.Dispatch(j.Job)
		stop()
		closeErr := j.Close(runErr == nil)
		if runErr != nil {
			return runErr
		}
		return closeErr
	}
}

// Join makes this process a rank of the job that runs plan: bootstrap, GPU, mesh and stream.
// Call it on the process's main thread (main locks the main goroutine to it): the rank's
// CPU binding stays that thread's.
func Join(ctx context.Context, plan *cli.Plan, version string) (*Job, error) {
	cfg := plan.Common()
	if cfg == nil {
		return nil, fmt.Errorf("the plan for %q has no options", plan.Command)
	}
	j := &Job{Job: &flows.Job{Plan: plan, Common: cfg, Version: version, Out: io.Discard, Started: time.Now()}}
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
		j.Out = cli.Stdout(ctx) // a failed write fails the run (cli.Main)
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
	dev, perGPU := local%n, (localSize+n-1)/n
	if d := cfg.Env.Device; d >= 0 { // NCCL_TESTS_DEVICE: every rank on this device
		if d >= n {
			return nil, cli.Usagef("rank %d on %s: NCCL_TESTS_DEVICE=%d, but %d GPU(s) are visible (0 to %d)", j.Rank(), j.Hostname, d, n, n-1)
		}
		dev, perGPU = d, localSize
	}
	if j.GPU, err = gpu.Open(dev, images); err != nil {
		return nil, fmt.Errorf("rank %d on %s: %w", j.Rank(), j.Hostname, err)
	}
	j.Job.GPU = j.GPU
	freeBefore, _, err := j.GPU.MemInfo()
	if err != nil {
		return nil, fmt.Errorf("rank %d: %w", j.Rank(), err)
	}
	if j.HostBarrier, err = bootstrap.NewHostBarrier(j.Boot, j.Hostname, ""); err != nil {
		return nil, err
	}
	proxy, err := j.planProxy()
	if err != nil {
		return nil, err
	}
	// Under MPS with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE the device reports this rank's share
	// of the SMs (internal/gpushare), so the split stays within it.
	j.SMs = max(j.GPU.Info().SMs/perGPU, 1)
	j.mps = gpushare.MPSOn(gpushare.PipeDir(os.Getenv))
	meshOpts := cfg.Env.Mesh // what the environment sets (cli.ReadEnv)
	meshOpts.Mode, meshOpts.Timeout, meshOpts.Hostname, meshOpts.Proxy = cfg.Transport, cfg.Timeout, j.Hostname, proxy
	hca := cfg.Env.IB
	hca.Verbs = ibverbs.Library{GIDIndex: cfg.Env.IBGIDIndex}
	meshOpts.SetTransportOptions(ib.Transport, hca)
	eth := cfg.Env.Ethernet
	eth.CPUs, eth.MachineCPUs, eth.SharedBy = j.helpers, j.threadCPUs, j.hostRanks
	if !affinity.CanSpin(proxy, j.helpers, j.cpus) {
		eth.Spin = 0 // no CPU to poll on without taking it from the main thread or the proxy
	}
	meshOpts.SetTransportOptions(ethernet.Transport, eth)
	if j.Mesh, err = channels.NewMesh(j.GPU, j.Boot, meshOpts); err != nil {
		if errors.Is(err, ib.ErrNoHCA) {
			return nil, cli.Usagef("%v", err) // names the rank and host
		}
		return nil, fmt.Errorf("rank %d: %w", j.Rank(), err)
	}
	if err := j.lendHelperCPUs(); err != nil {
		return nil, err
	}
	if j.Stream, err = j.GPU.NewStream(); err != nil {
		return nil, err
	}
	if err := j.gatherDevices(); err != nil {
		return nil, err
	}
	freeAfter, _, err := j.GPU.MemInfo()
	if err != nil {
		return nil, fmt.Errorf("rank %d: %w", j.Rank(), err)
	}
	j.SetupMem = int64(freeBefore) - int64(freeAfter)
	j.SetupDur = time.Since(j.Started)
	return j, nil
}

// lendHelperCPUs lets the threads of a rank bound to one CPU that are still on it (the Go
// runtime's, CUDA's, MPI's) run on the Ethernet helpers' CPUs too, where the rank reaches
// some peer over Ethernet. The main thread (this one, locked in main's init) keeps the
// rank's CPU, and pinned threads keep their pinning (the helpers, and the proxy, which
// starts later with the first port channels and pins itself then). Confined to the CPU
// that the main thread keeps busy, those threads made launches of 1 to 4 MiB take 1.3 to
// 1.9 times as long on 2x H200 as 2 simulated hosts of one rank (docs/performance.md,
// "The rank's other threads off its CPU").
func (j *Job) lendHelperCPUs() error {
	overEthernet := slices.ContainsFunc(j.Mesh.Peers(), func(p int) bool {
		return j.Mesh.PairTransport(j.Rank(), p) == ethernet.Transport
	})
	if len(j.helpers) == 0 || !overEthernet {
		return nil
	}
	if _, err := affinity.WidenOthers(j.cpus, affinity.Union(j.cpus, j.helpers)); err != nil {
		return fmt.Errorf("rank %d: %w", j.Rank(), err)
	}
	return nil
}

// planProxy learns every rank's CPU binding and places this rank's proxy thread on a CPU
// that no rank of the host is bound to, when the rank itself has a single CPU (mpirun's
// default binding): sharing that CPU with the main thread halved port-channel throughput.
func (j *Job) planProxy() (affinity.Placement, error) {
	var err error
	if j.cpus, err = affinity.Current(); err != nil {
		return affinity.Placement{}, fmt.Errorf("rank %d: %w", j.Rank(), err)
	}
	type binding struct {
		Host string
		CPUs string
	}
	mine, _ := json.Marshal(binding{j.Hostname, j.cpus.String()})
	all, err := j.Boot.AllGather(mine)
	if err != nil {
		return affinity.Placement{}, err
	}
	var host []affinity.Set
	index := 0
	for r, b := range all {
		var other binding
		if err := json.Unmarshal(b, &other); err != nil {
			return affinity.Placement{}, fmt.Errorf("CPU binding of rank %d: %w", r, err)
		}
		if other.Host != j.Hostname {
			continue
		}
		s, err := affinity.Parse(other.CPUs)
		if err != nil {
			return affinity.Placement{}, fmt.Errorf("CPU binding of rank %d: %w", r, err)
		}
		if r == j.Rank() {
			index = len(host)
		}
		host = append(host, s)
	}
	hostCPUs := affinity.ReadHost("")
	j.proxy = affinity.Plan(host, index, hostCPUs)
	j.helpers = affinity.Helpers(host, index, hostCPUs)
	j.threadCPUs, j.hostRanks = affinity.ThreadCPUs(host, j.helpers), len(host)
	return j.proxy, nil
}

// gatherDevices collects every rank's device line for the report, and how the ranks
// share GPUs for its header.
func (j *Job) gatherDevices() error {
	type rankInfo struct {
		Device results.Device
		Share  gpushare.Rank
	}
	info := j.GPU.Info()
	mine, _ := json.Marshal(rankInfo{
		Device: results.Device{Rank: j.Rank(), Pid: os.Getpid(), Hostname: j.Hostname, Device: info.Ordinal, BusID: shortBusID(info.BusID), Name: info.Name,
			CPUs: j.cpus.String(), ProxyCPUs: j.proxy.String()},
		Share: gpushare.Rank{Host: j.Hostname, BusID: info.BusID, MPS: j.mps, Percent: gpushare.ThreadPercent(os.Getenv), SMs: info.SMs, GridSMs: j.SMs, Queues: gpushare.WorkQueues(os.Getenv)},
	})
	all, err := j.Boot.AllGather(mine)
	if err != nil {
		return err
	}
	j.Devices = make([]results.Device, len(all))
	share := make([]gpushare.Rank, len(all))
	for r, b := range all {
		var x rankInfo
		if err := json.Unmarshal(b, &x); err != nil {
			return fmt.Errorf("device info of rank %d: %w", r, err)
		}
		j.Devices[r], share[r] = x.Device, x.Share
	}
	j.ShareNotes = gpushare.Notes(share)
	j.Sharing.SharedGPU = len(gpushare.Shared(share)) > 0
	if gpushare.DefaultQueuesUnderMPS(share) && j.networkPair() {
		j.Sharing.MPSNetwork = true
		j.ShareNotes = append(j.ShareNotes, fmt.Sprintf("under MPS with the default work queues, the network receivers' copies into GPU memory can stall behind spinning kernels "+
			"(docs/gpu-testing.md): the hierarchical algorithms (hier) are off; CUDA_DEVICE_MAX_CONNECTIONS=%d on every rank turns them back on", gpushare.RecommendedWorkQueues))
	}
	return nil
}

// networkPair says whether some pair of ranks talks over a network transport.
func (j *Job) networkPair() bool {
	for a := 0; a < j.Mesh.NRanks; a++ {
		for b := a + 1; b < j.Mesh.NRanks; b++ {
			if !j.Mesh.PairTransport(a, b).Maps() {
				return true
			}
		}
	}
	return false
}

// shortBusID turns "0000:00:06.0" into nccl-tests' "0000:00:06".
func shortBusID(id string) string {
	if len(id) > 2 && id[len(id)-2] == '.' {
		return id[:len(id)-2]
	}
	return id
}

// Close tears down in order; on success each rank first sends every trigger its kernels
// pushed (Mesh.StopProxy: a launch of hostput waits only for the peers that send it
// bytes, so the others' last signals may still be queued), then the ranks meet at a
// barrier, so nobody closes a connection a peer still sends on or frees memory a peer may
// still read.
func (j *Job) Close(ok bool) error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	if ok && j.Boot != nil {
		if j.Mesh != nil {
			keep(j.Mesh.StopProxy())
		}
		keep(j.Boot.Barrier())
	}
	if j.Mesh != nil {
		keep(j.Mesh.Close())
	}
	keep(j.HostBarrier.Close())
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

// startProfile starts a Go CPU profile into path.RANK when path is set
// ($MSCCLPP_BENCH_CPUPROFILE); the returned function stops it.
func startProfile(path string, rank int) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", path, rank))
	if err != nil {
		return nil, fmt.Errorf("rank %d: cpu profile: %w", rank, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("rank %d: cpu profile: %w", rank, err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
