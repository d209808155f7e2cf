package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/compare"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bytesize"
	"github.com/mscclpp-bench/mscclpp-bench/internal/safefile"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

func init() { extraCommands = append(extraCommands, newCompareCommand) }

// compareFlags holds the compare subcommand's flag values.
type compareFlags struct {
	timeTol, busBwTol float64
	latencyBound      string
	force             bool
	anyAlgorithm      bool
	junit             string
}

// newCompareCommand returns the "compare BASELINE.json CURRENT.json"
// subcommand: it prints a table comparing the two results files and exits
// with 1 when a row regressed, went missing or has wrong elements.
func newCompareCommand(app *cli.App) *cobra.Command {
	def := compare.DefaultOptions()
	f := &compareFlags{}
	cmd := &cobra.Command{
		Use:   "compare BASELINE.json CURRENT.json",
		Short: "Compare two JSON results files and flag regressions",
		Long: `compare matches the rows of two JSON results files (ours or nccl-tests' -J) by
algorithm, type, op, placement and size, and judges each: sizes below
--latency-bound-below on time, larger ones on bus bandwidth; ping-pong "signal"
rows on latency, the others on bandwidth. A baseline from nccl-tests, which
names no algorithm, is compared with every algorithm of the current file.
Exit status: 0 when nothing regressed, 1 when a row regressed, is missing or
has wrong elements, 2 for bad input (including different configurations,
unless --force) or a --junit file that cannot be written.`,
		Args: cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			return runCompare(app, f, args[0], args[1])
		},
	}
	fs := cmd.Flags()
	fs.Float64Var(&f.timeTol, "time-tolerance", def.TimeTolerance, "relative time (latency) change counted as noise, as a fraction (0.15 = 15%)")
	fs.Float64Var(&f.busBwTol, "busbw-tolerance", def.BusBwTolerance, "relative bandwidth change counted as noise, as a fraction")
	fs.StringVar(&f.latencyBound, "latency-bound-below", "1M", "sizes below this (K, M, G suffixes) are judged on time, the others on bus bandwidth")
	fs.BoolVar(&f.force, "force", false, "compare even if rank count, GPU models or collective differ")
	fs.BoolVar(&f.anyAlgorithm, "any-algorithm", false, "match rows whatever algorithm measured them (two -k auto runs whose choice changed)")
	fs.StringVar(&f.junit, "junit", "", "also write a JUnit XML report to this file (not one of the inputs)")
	return cmd
}

// runCompare reads both files, compares them and reports.
func runCompare(app *cli.App, f *compareFlags, basePath, curPath string) error {
	opt := compare.Options{TimeTolerance: f.timeTol, BusBwTolerance: f.busBwTol, Force: f.force, AnyAlgorithm: f.anyAlgorithm}
	for _, t := range []struct {
		flag string
		v    float64
	}{{"--time-tolerance", f.timeTol}, {"--busbw-tolerance", f.busBwTol}} {
		if math.IsNaN(t.v) || math.IsInf(t.v, 0) || t.v < 0 {
			return cli.Usagef("%s %g: want a fraction of at least 0, e.g. 0.05 for 5%%", t.flag, t.v)
		}
	}
	var err error
	if opt.LatencyBoundBelow, err = bytesize.Parse(f.latencyBound); err != nil {
		return cli.Usagef("--latency-bound-below: %v", err)
	}
	if f.junit != "" {
		if err := safefile.CheckOutput(f.junit, basePath, curPath); err != nil {
			return cli.Usagef("--junit: %v", err)
		}
	}
	base, err := readCompareInput("baseline", basePath)
	if err != nil {
		return err
	}
	cur, err := readCompareInput("current", curPath)
	if err != nil {
		return err
	}
	res, err := compare.Compare(base, cur, opt)
	if err != nil {
		if errors.Is(err, compare.ErrMismatch) || errors.Is(err, compare.ErrNoCommonRows) {
			return cli.Usagef("%v (use --force to compare anyway)", err)
		}
		return cli.Usagef("%v", err)
	}
	if err := compare.WriteTable(app.Stdout, res); err != nil {
		return cli.Failure(err)
	}
	if f.junit != "" {
		name := fmt.Sprintf("compare %s vs %s", filepath.Base(basePath), filepath.Base(curPath))
		err := safefile.Write(f.junit, func(w io.Writer) error { return compare.WriteJUnit(w, res, name) })
		if err != nil {
			return cli.Usagef("--junit %s: %v", f.junit, err)
		}
	}
	if res.Failed() {
		return cli.Failure(errors.New(compareFailureLine(res)))
	}
	return nil
}

// readCompareInput reads a JSON results file; which ("baseline" or "current")
// names it in errors, which are usage errors.
func readCompareInput(which, path string) (*results.Report, error) {
	fh, err := safefile.Open(path)
	if err != nil {
		return nil, cli.Usagef("compare: %s: %v", which, err)
	}
	defer fh.Close()
	r, err := results.ReadJSON(fh)
	if err != nil {
		return nil, cli.Usagef("compare: %s %s: %v", which, path, err)
	}
	return r, nil
}

// compareFailureLine summarises the failures, e.g. "compare: 2 of 58 rows
// regressed, 1 missing".
func compareFailureLine(res *compare.Result) string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{res.Counts.Regressed, "regressed"}, {res.Counts.Missing, "missing"}, {res.Counts.Wrong, "wrong"}} {
		if p.n == 0 {
			continue
		}
		if len(parts) == 0 {
			parts = append(parts, fmt.Sprintf("%d of %d rows %s", p.n, len(res.Rows), p.what))
		} else {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return "compare: " + strings.Join(parts, ", ")
}
