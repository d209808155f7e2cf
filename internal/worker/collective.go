package worker

import (
	"fmt"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/progress"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

func runCollective(j *Job) error {
	c := j.Cfg
	coll, err := collectives.Lookup(c.Command)
	if err != nil {
		return err
	}
	p := results.NewTextPrinter(j.Out)
	h := j.Header(coll.TestName())
	p.Header(h)
	meter := j.Meter()
	defer meter.Close()
	opts := collectives.Options{Progress: meter.Update,
		Sizes: c.Sizes(), Iters: c.Iters, Warmup: c.Warmup, AggIters: c.AggIters, Check: c.Check,
		Graph: c.Graph, Blocking: c.Blocking, Average: c.Average, Datatypes: c.Datatypes, Ops: c.Ops, Kernel: c.Kernel, SMs: j.SMs, Barrier: j.Barrier(),
		Cycles: c.Cycles,
	}
	if c.Cycles == 0 { // nccl-tests' "until stopped"
		opts.Cycles = -1
	}
	if c.Cycles != 1 {
		opts.AfterCycle = func(cycle int) error { return j.noteMemory(p, cycle) }
	}
	harness, err := collectives.NewHarness(coll, j.GPU, j.Mesh, j.Stream, opts, p)
	if err != nil {
		return err
	}
	defer harness.Close()
	report := &results.Report{Header: h, Args: c.Args, Start: time.Now()}
	sum, err := harness.Run(clearingReporter{p, meter})
	if err != nil {
		return err
	}
	footer := results.Footer{OutOfBounds: sum.Wrong, AvgBusBw: sum.AvgBusBw}
	p.Footer(footer)
	report.Rows, report.Footer, report.End = sum.Rows, footer, time.Now()
	if c.Summary && j.Rank() == 0 {
		if err := results.WriteBestSummary(j.Out, sum.Rows); err != nil {
			return err
		}
	}
	if err := j.WriteJSON(report); err != nil {
		return err
	}
	if err := p.Err(); err != nil {
		return err
	}
	if sum.Wrong > 0 {
		return fmt.Errorf("%s: %d wrong elements", c.Command, sum.Wrong)
	}
	return nil
}

// clearingReporter erases the progress line before each row goes to stdout, so that on a
// terminal the row is not printed behind it.
type clearingReporter struct {
	*results.TextPrinter
	meter *progress.Meter
}

// Row implements collectives.Reporter.
func (r clearingReporter) Row(row results.Row) {
	r.meter.Clear()
	r.TextPrinter.Row(row)
}
