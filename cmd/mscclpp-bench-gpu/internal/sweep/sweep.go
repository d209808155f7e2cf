// Package sweep runs a collective's subcommand (any registered one) on a rank that has joined the
// job: it turns the collective's plan (cli.CollectiveOptions) into the harness's options,
// checks the plan's algorithm selection against the job's layout and rank count, prints the nccl-tests report (rank 0), writes -J,
// and fails the run when any element was wrong, with --repeat-check when an output was not
// repeatable, or with NCCL_TESTS_MIN_BW set when the average bus bandwidth is below 90 % of
// it. It needs no GPU of its own (everything
// goes through device.GPU and channels.Mesh), so it is tested on the CPU; the GPU worker
// calls it with the real device.
package sweep

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/harness"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/progress"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// Rank is what a sweep needs from a joined rank.
type Rank struct {
	Cfg    *cli.CollectiveOptions // the plan's options
	Args   []string               // the command line, for the -J report
	GPU    device.GPU
	Mesh   *channels.Mesh
	Stream device.Stream
	SMs    int       // multiprocessors this rank's kernels may fill
	Out    io.Writer // rank 0's stdout; io.Discard on the other ranks
	// Header returns the report header for a collective's test name.
	Header func(testName string) results.Header
	// Meter is the progress line (nil: none); Run closes it.
	Meter *progress.Meter
	// WriteJSON writes the -J file (it decides which rank writes).
	WriteJSON func(*results.Report) error
	// Barrier is blocking mode's per-iteration barrier (nil: the bootstrap's).
	Barrier func() error
	// AfterCycle, when set, is called after each cycle of a repeated sweep (-N other than
	// 1) with the report's printer.
	AfterCycle func(p *results.TextPrinter, cycle int) error
	// SetupMem is the GPU memory this rank's set-up (mesh, channels) took, for -M.
	SetupMem int64
	// World, when set, is the whole job while Mesh is this rank's group's (RunSplit).
	World harness.AllGatherer
	// Sharing is how the ranks share GPUs (collectives.Layout.GPUSharing).
	Sharing collectives.GPUSharing
}

// Options turns the collective's options into the harness's for a rank whose kernels may
// fill sms multiprocessors.
func Options(c *cli.CollectiveOptions, sms int) harness.Options {
	o := harness.Options{
		Sizes: c.Sizes(), Iters: c.Iters, Warmup: c.Warmup, AggIters: c.AggIters, Check: c.Check,
		Graph: c.Graph, Blocking: c.Blocking, Average: c.Average, Datatypes: c.Datatypes, Ops: c.Ops,
		Kernel: c.Kernel.Key(), SMs: sms, Cycles: c.Cycles,
		PerIter: c.NCCLTests.PerIter, PerIterSkip: c.NCCLTests.PerIterSkip, Unalign: c.NCCLTests.Unalign, Root: c.NCCLTests.Root,
		RepeatCheck: c.RepeatCheck,
	}
	if c.Cycles == 0 { // nccl-tests' "until stopped"
		o.Cycles = -1
	}
	return o
}

// Run runs the collective sweep r.Cfg asks for. An algorithm that cannot run on this
// job's rank count is a usage error, found before the header is printed; wrong elements,
// summed over every rank, fail the run after the report is written.
func Run(r Rank) error {
	defer r.Meter.Close()
	c := r.Cfg
	coll, err := collectives.Lookup(c.Collective)
	if err != nil {
		return err
	}
	if err := checkJob(c, coll, r.Mesh, r.Sharing); err != nil {
		return err
	}
	p := results.NewTextPrinter(r.Out)
	h := ncclTestsHeader(r.Header(coll.TestName()), c)
	p.Header(h)
	mem := memoryMeter{gpu: r.GPU, on: c.NCCLTests.Memory}
	if err := mem.mark(); err != nil {
		return err
	}
	opts := Options(c, r.SMs)
	opts.Sharing = r.Sharing
	opts.Progress, opts.Barrier, opts.World = r.Meter.Update, r.Barrier, r.World
	if c.Cycles != 1 && r.AfterCycle != nil {
		opts.AfterCycle = func(cycle int) error { return r.AfterCycle(p, cycle) }
	}
	run, err := harness.NewHarness(coll, r.GPU, r.Mesh, r.Stream, opts, p)
	if err != nil {
		return err
	}
	defer run.Close()
	if err := mem.mark(); err != nil {
		return err
	}
	report := &results.Report{Header: h, Args: r.Args, Start: time.Now()}
	sum, err := run.Run(clearingReporter{p, r.Meter})
	if err != nil {
		return err
	}
	if err := mem.mark(); err != nil {
		return err
	}
	footer := results.Footer{OutOfBounds: sum.Wrong, AvgBusBw: sum.AvgBusBw, MinBusBw: c.Env.MinBusBw, CheckBusBw: c.Env.CheckBusBw}
	if footer.Memory, err = mem.usage(r.SetupMem, r.Mesh.Boot.AllGather); err != nil {
		return err
	}
	p.Footer(footer)
	report.Rows, report.Footer, report.End = sum.Rows, footer, time.Now()
	if c.Summary && r.Mesh.Rank == 0 {
		if err := results.WriteBestSummary(r.Out, sum.Rows); err != nil {
			return err
		}
	}
	if err := r.WriteJSON(report); err != nil {
		return err
	}
	if err := p.Err(); err != nil {
		return err
	}
	if sum.Wrong > 0 {
		return fmt.Errorf("%s: %d wrong elements", c.Collective, sum.Wrong)
	}
	if sum.RepeatDiffs > 0 {
		return fmt.Errorf("%s: repeat check: %d placement(s) not repeatable; the first: %s", c.Collective, sum.RepeatDiffs, sum.FirstRepeatDiff)
	}
	if !footer.BusBwOK() {
		return fmt.Errorf("%s: average bus bandwidth %s GB/s is below 90 %% of NCCL_TESTS_MIN_BW=%s (%s GB/s)", c.Collective,
			strconv.FormatFloat(footer.AvgBusBw, 'g', 6, 64), strconv.FormatFloat(footer.MinBusBw, 'g', -1, 64),
			strconv.FormatFloat(footer.MinBusBw*0.9, 'g', 6, 64))
	}
	return nil
}

// checkJob checks the plan against what only the job knows: its rank count and layout
// (hosts, transports, how ranks share GPUs), with usage errors found before the header is printed. The
// plan's -k was resolved by the front end; with it, the harness then picks each size's
// algorithm on the same layout (auto: the best that fits).
func checkJob(c *cli.CollectiveOptions, coll collectives.Collective, m *channels.Mesh, sharing collectives.GPUSharing) error {
	k := c.Kernel.Key()
	if err := collectives.CheckSweep(c.Collective, k, c.Sizes(), c.Datatypes, m.NRanks); err != nil {
		return cli.Usagef("--kernel %s: %v", c.Kernel.Given, err)
	}
	layout := collectives.LayoutOf(m)
	layout.GPUSharing = sharing
	if err := collectives.CheckLayout(c.Collective, k, layout); err != nil {
		return cli.Usagef("--kernel %s: %v", c.Kernel.Given, err)
	}
	if err := collectives.CheckRanks(coll, m.NRanks); err != nil {
		return cli.Usagef("%v", err)
	}
	if coll.HasRoot() && c.NCCLTests.Root >= m.NRanks {
		return cli.Usagef("-r/--root %d: this job has ranks 0 to %d", c.NCCLTests.Root, m.NRanks-1)
	}
	return nil
}

// clearingReporter erases the progress line before each row goes to stdout, so that on a
// terminal the row is not printed behind it.
type clearingReporter struct {
	*results.TextPrinter
	meter *progress.Meter
}

// Row implements harness.Reporter.
func (r clearingReporter) Row(row results.Row) {
	r.meter.Clear()
	r.TextPrinter.Row(row)
}
