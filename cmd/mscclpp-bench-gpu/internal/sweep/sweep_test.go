package sweep

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/harness"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
	"github.com/mscclpp-bench/mscclpp-bench/internal/safefile"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// TestOptions: every harness option comes from its flag; -c in particular reaches the
// harness unchanged.
func TestOptions(t *testing.T) {
	c := &cli.CollectiveOptions{Common: cli.Common{MinBytes: 8, MaxBytes: 64, StepFactor: 2, Iters: 7, Warmup: 3, Check: 5},
		Collective: "allreduce", AggIters: 2, Graph: 4, Blocking: 0, Average: 2, Cycles: 3, Datatypes: []string{"half", "float"}, Ops: []string{"max"},
		Kernel: cli.Selection{Mode: cli.SelectOne, Algorithm: "rsag", Given: "3"}}
	want := harness.Options{Sizes: []int64{8, 16, 32, 64}, Iters: 7, Warmup: 3, AggIters: 2, Check: 5, Graph: 4,
		Average: 2, Cycles: 3, Datatypes: []string{"half", "float"}, Ops: []string{"max"}, Kernel: "rsag", SMs: 33}
	if got := Options(c, 33); !reflect.DeepEqual(got, want) {
		t.Errorf("Options = %+v\nwant      %+v", got, want)
	}
	c.Blocking, c.Graph, c.Check, c.Cycles = 2, 0, 0, 0
	want.Blocking, want.Graph, want.Check, want.Cycles = 2, 0, 0, -1 // -N 0: until stopped
	if got := Options(c, 33); !reflect.DeepEqual(got, want) {
		t.Errorf("Options = %+v\nwant      %+v", got, want)
	}
}

// outcome is what one sweep run gave: each rank's error, rank 0's text and report.
type outcome struct {
	errs   []error
	text   string
	report *results.Report
}

// run runs cfg on every rank of j at once.
func run(t *testing.T, j *job, cfg cli.CollectiveOptions) outcome {
	t.Helper()
	var o outcome
	var out bytes.Buffer
	o.errs = bounded.Ranks(t, len(j.meshes), 60*time.Second, func(r int) error {
		rank := Rank{
			Cfg: &cfg, GPU: j.gpus[r], Mesh: j.meshes[r], Stream: 1, SMs: 4, Out: io.Discard,
			Header:    func(name string) results.Header { return results.Header{Program: "test", Collective: name} },
			WriteJSON: func(*results.Report) error { return nil },
			SetupMem:  int64(r+1) << 20, // -M's largest over ranks: 2 MiB with two
		}
		if r == 0 {
			rank.Out = &out
			rank.WriteJSON = func(rep *results.Report) error { o.report = rep; return nil }
		}
		return Run(rank)
	})
	o.text = out.String()
	return o
}

// config returns a two-size sweep (64 B and 4 KiB) of kernel k on dtype.
func config(command, k, dtype string, check int) cli.CollectiveOptions {
	ops := []string{"sum"}
	if command == "allgather" {
		ops = []string{"none"}
	}
	sel, err := cli.ParseSelection(command, k)
	if err != nil {
		panic(fmt.Sprintf("test config: %v", err)) // a test's own mistake
	}
	return cli.CollectiveOptions{Common: cli.Common{MinBytes: 64, MaxBytes: 4096, StepFactor: 64, Iters: 3, Warmup: 1, Check: check, Timeout: 10 * time.Second},
		Collective: command, AggIters: 1, Average: 1, Cycles: 1, Datatypes: []string{dtype}, Ops: ops, Kernel: sel}
}

// TestRunCountsWrongElements: elements a collective gets wrong are counted on every rank,
// summed over the ranks in each row's #wrong, in the footer and the JSON report, and fail
// the run on every rank; -c 0 checks nothing; a correct collective gives 0 everywhere.
func TestRunCountsWrongElements(t *testing.T) {
	j := newJob(t, 2)
	tests := []struct {
		name      string
		cfg       cli.CollectiveOptions
		faults    map[int]int
		perPlace  int64 // #wrong of every placement of every row (-1: N/A)
		wantError string
	}{
		{"allreduce correct", config("allreduce", "hostsum", "int32", 1), nil, 0, ""},
		{"allreduce wrong on both ranks", config("allreduce", "hostsum", "int32", 1), map[int]int{0: 1, 1: 2}, 3, "allreduce: 12 wrong elements"},
		{"allreduce wrong on rank 1 only", config("allreduce", "hostsum", "float", 1), map[int]int{1: 5}, 5, "allreduce: 20 wrong elements"},
		{"allreduce wrong, checked 3 times", config("allreduce", "hostsum", "float", 3), map[int]int{0: 1}, 1, "allreduce: 4 wrong elements"},
		{"allreduce wrong, not checked", config("allreduce", "hostsum", "int32", 0), map[int]int{0: 1, 1: 2}, -1, ""},
		{"allgather correct", config("allgather", "hostgather", "float", 1), nil, 0, ""},
		{"allgather wrong", config("allgather", "hostgather", "half", 1), map[int]int{0: 2, 1: 1}, 3, "allgather: 12 wrong elements"},
		// reduce-scatter: each rank's block is checked against its own elements of the
		// reduction (the check's offset), in place at the rank's own in-place offset
		{"reducescatter correct", config("reducescatter", "hostrs", "float", 1), nil, 0, ""},
		{"reducescatter wrong on rank 1", config("reducescatter", "hostrs", "int32", 1), map[int]int{1: 2}, 2, "reducescatter: 8 wrong elements"},
	}
	graph := config("allreduce", "hostsum", "int32", 1)
	graph.Graph = 2
	tests = append(tests, struct {
		name      string
		cfg       cli.CollectiveOptions
		faults    map[int]int
		perPlace  int64
		wantError string
	}{"allreduce wrong in graph mode", graph, map[int]int{1: 1}, 1, "allreduce: 4 wrong elements"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setFaults(t, tt.faults)
			o := run(t, j, tt.cfg)
			for r, err := range o.errs {
				if tt.wantError == "" && err != nil {
					t.Errorf("rank %d: %v", r, err)
				}
				if tt.wantError != "" && (err == nil || err.Error() != tt.wantError) {
					t.Errorf("rank %d: error %v, want %q", r, err, tt.wantError)
				}
			}
			if o.report == nil {
				t.Fatalf("no report; text:\n%s", o.text)
			}
			if len(o.report.Rows) != 2 {
				t.Fatalf("%d rows, want 2:\n%s", len(o.report.Rows), o.text)
			}
			total := int64(0)
			for _, row := range o.report.Rows {
				for _, p := range []*results.Placement{row.OutOfPlace, row.InPlace} {
					if p.Wrong != tt.perPlace {
						t.Errorf("size %d: #wrong %d, want %d", row.Size, p.Wrong, tt.perPlace)
					}
					total += max(p.Wrong, 0)
				}
			}
			if o.report.OutOfBounds != total {
				t.Errorf("footer counts %d wrong, the rows %d", o.report.OutOfBounds, total)
			}
			wantCell := results.FormatWrong(tt.perPlace)
			for _, line := range strings.Split(o.text, "\n") {
				if f := strings.Fields(line); len(f) == 13 && !strings.HasPrefix(line, "#") {
					if f[8] != strings.TrimSpace(wantCell) || f[12] != strings.TrimSpace(wantCell) {
						t.Errorf("row %q: #wrong columns %s and %s, want %s", line, f[8], f[12], wantCell)
					}
				}
			}
		})
	}
}

// TestRunBandwidths: algbw is the size column's bytes (for allgather, every rank's share:
// nranks times what one rank sends) per second, and busbw nccl-tests' factor of it.
func TestRunBandwidths(t *testing.T) {
	j := newJob(t, 2)
	for _, tt := range []struct {
		cfg      cli.CollectiveOptions
		testName string
	}{
		{config("allgather", "hostgather", "float", 1), "all_gather_perf"},
		{config("allreduce", "hostsum", "float", 1), "all_reduce_perf"},
	} {
		o := run(t, j, tt.cfg)
		if o.errs[0] != nil || o.report == nil {
			t.Fatalf("%s: %v", tt.cfg.Collective, o.errs[0])
		}
		dt, _ := collectives.LookupDatatype("float")
		for _, row := range o.report.Rows {
			c, _ := collectives.Lookup(tt.cfg.Collective)
			counts := c.Counts(row.Size, dt, 2)
			if row.Size != counts.Recv*4 {
				t.Errorf("%s: size column %d, want the %d bytes each rank receives", tt.cfg.Collective, row.Size, counts.Recv*4)
			}
			for _, p := range []*results.Placement{row.OutOfPlace, row.InPlace} {
				if !(p.TimeUs > 0) {
					t.Fatalf("%s %d: time %g", tt.cfg.Collective, row.Size, p.TimeUs)
				}
				want := float64(row.Size) / 1e9 / (p.TimeUs / 1e6)
				if math.Abs(p.AlgBw-want) > 1e-9*want {
					t.Errorf("%s %d: algbw %g, want %g (%d bytes in %g us)", tt.cfg.Collective, row.Size, p.AlgBw, want, row.Size, p.TimeUs)
				}
				if bus := p.AlgBw * results.BusBwFactor(tt.testName, 2); math.Abs(p.BusBw-bus) > 1e-9*bus {
					t.Errorf("%s %d: busbw %g, want %g", tt.cfg.Collective, row.Size, p.BusBw, bus)
				}
			}
		}
	}
}

// TestRunRefusesRankLimits: an algorithm that does not run on the job's rank count is a
// usage error on every rank, before the header (the front end cannot know the count).
func TestRunRefusesRankLimits(t *testing.T) {
	j := newJob(t, 2)
	o := run(t, j, config("allgather", "local", "float", 1))
	for r, err := range o.errs {
		if err == nil || !cli.IsUsage(err) || !strings.Contains(err.Error(), "allgather local does not run on 2 ranks") {
			t.Errorf("rank %d: %v, want a usage error about 2 ranks", r, err)
		}
	}
	if o.text != "" || o.report != nil {
		t.Errorf("a refused sweep printed:\n%s", o.text)
	}
}

// TestMainExitCode runs the command line on two ranks, as the worker binary does: wrong
// elements exit 1 on every rank, with the count in the one-line error and in the -J file;
// -c 0 (nothing checked) exits 0 and writes no count.
func TestMainExitCode(t *testing.T) {
	j := newJob(t, 2)
	setFaults(t, map[int]int{0: 1, 1: 2})
	dir := t.TempDir()
	tests := []struct {
		check     string
		code      int
		stderr    string
		jsonWrong string
	}{
		{"1", cli.ExitFailure, "mscclpp-bench: allreduce: 6 wrong elements\n", `"nwrong": 3.0`},
		{"2", cli.ExitFailure, "mscclpp-bench: allreduce: 6 wrong elements\n", `"nwrong": 3.0`},
		{"0", cli.ExitOK, "", `"nwrong": null`},
	}
	for _, tt := range tests {
		t.Run("-c "+tt.check, func(t *testing.T) {
			path := filepath.Join(dir, "c"+tt.check+".json")
			args := []string{"allreduce", "-k", "hostsum", "-d", "int32", "-b", "64", "-e", "64", "-n", "2", "-c", tt.check, "-J", path}
			codes, stderrs := make([]int, 2), make([]string, 2)
			bounded.Ranks(t, 2, 60*time.Second, func(r int) error {
				var stdout, stderr bytes.Buffer
				runner := j.runner(r, &stdout)
				codes[r] = cli.Main(cli.App{Name: "mscclpp-bench", Version: "test", Run: runner, Stdout: &stdout, Stderr: &stderr}, args)
				stderrs[r] = stderr.String()
				return nil
			})
			for r := range codes {
				if codes[r] != tt.code || stderrs[r] != tt.stderr {
					t.Errorf("rank %d: exit %d, stderr %q; want %d, %q", r, codes[r], stderrs[r], tt.code, tt.stderr)
				}
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(string(data), tt.jsonWrong); got != 2 {
				t.Errorf("-J file has %d placements with %s, want 2", got, tt.jsonWrong)
			}
		})
	}
}

// TestRunCycles: with -N 3 the sweep runs three times, AfterCycle is called after each
// cycle, the report keeps the last cycle's rows, and wrong elements add up over cycles.
func TestRunCycles(t *testing.T) {
	j := newJob(t, 2)
	setFaults(t, map[int]int{1: 1})
	cfg := config("allreduce", "hostsum", "int32", 1)
	cfg.Cycles = 3
	var mu sync.Mutex
	cycles := map[int][]int{}
	var out bytes.Buffer
	var rep *results.Report
	errs := bounded.Ranks(t, 2, 60*time.Second, func(r int) error {
		rank := Rank{Cfg: &cfg, GPU: j.gpus[r], Mesh: j.meshes[r], Stream: 1, SMs: 4, Out: io.Discard,
			Header:    func(name string) results.Header { return results.Header{Program: "test", Collective: name} },
			WriteJSON: func(*results.Report) error { return nil },
			AfterCycle: func(p *results.TextPrinter, cycle int) error {
				mu.Lock()
				cycles[r] = append(cycles[r], cycle)
				mu.Unlock()
				p.Note("cycle %d done", cycle)
				return nil
			}}
		if r == 0 {
			rank.Out = &out
			rank.WriteJSON = func(x *results.Report) error { rep = x; return nil }
		}
		return Run(rank)
	})
	for r, err := range errs {
		// 2 sizes x 2 placements x 1 wrong element x 3 cycles
		if err == nil || err.Error() != "allreduce: 12 wrong elements" {
			t.Errorf("rank %d: %v, want 12 wrong elements", r, err)
		}
		if !reflect.DeepEqual(cycles[r], []int{1, 2, 3}) {
			t.Errorf("rank %d: AfterCycle called for cycles %v", r, cycles[r])
		}
	}
	if rep == nil || len(rep.Rows) != 2 || rep.OutOfBounds != 12 {
		t.Fatalf("report %+v, want the last cycle's 2 rows and 12 wrong in all", rep)
	}
	if n := strings.Count(out.String(), "# cycle "); n != 3 {
		t.Errorf("%d cycle notes in the output, want 3:\n%s", n, out.String())
	}
}

// TestRunSizesBeyondGPUMemory: the sweep is cut to what the rank with the least free GPU
// memory can hold, on every rank alike (with nccl-tests' note); when no size fits, every
// rank fails saying so instead of printing no row and passing.
func TestRunSizesBeyondGPUMemory(t *testing.T) {
	j := newJob(t, 2)
	short := uint64(1<<30 + 3<<20) // a 1 MiB budget: (free - 1 GiB) / 3
	tests := []struct {
		name      string
		free      [2]uint64 // 0: all of the stand-in's 16 GiB
		min, max  int64
		rows      int
		wantError string
	}{
		{"everything fits", [2]uint64{}, 64, 4 << 20, 9, ""},
		{"rank 1 short: both ranks cut at 1 MiB", [2]uint64{0, short}, 64, 4 << 20, 8, ""},
		{"rank 0 short: both ranks cut at 1 MiB", [2]uint64{short, 0}, 64, 4 << 20, 8, ""},
		{"rank 1 short: no size fits", [2]uint64{0, short}, 2 << 20, 4 << 20, 0, "no size of the sweep fits in GPU memory: the smallest, 2097152 bytes (-b), is above 1048576, the most that rank 1's 1076887552 free bytes hold"},
		{"-b beyond a whole GPU", [2]uint64{}, 6 << 30, 6 << 30, 0, "no size of the sweep fits in GPU memory: the smallest, 6442450944 bytes (-b), is above 5368709120, the most that rank 0's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for r, f := range tt.free {
				j.gpus[r].SetFree(f)
			}
			t.Cleanup(func() { j.gpus[0].SetFree(0); j.gpus[1].SetFree(0) })
			cfg := config("allreduce", "hostsum", "float", 1)
			cfg.MinBytes, cfg.MaxBytes, cfg.StepFactor = tt.min, tt.max, 4
			o := run(t, j, cfg)
			for r, err := range o.errs {
				if tt.wantError == "" && err != nil || tt.wantError != "" && (err == nil || !strings.Contains(err.Error(), tt.wantError)) {
					t.Errorf("rank %d: error %v, want %q", r, err, tt.wantError)
				}
			}
			if tt.wantError != "" {
				if o.report != nil && len(o.report.Rows) > 0 {
					t.Errorf("%d rows printed; want none", len(o.report.Rows))
				}
				return
			}
			if o.report == nil || len(o.report.Rows) != tt.rows {
				t.Fatalf("report %+v, want %d rows; text:\n%s", o.report, tt.rows, o.text)
			}
			cut := strings.Contains(o.text, "# Reducing maxBytes to 1048576 due to memory limitation")
			if cut != (tt.rows < 9) || o.report.Rows[len(o.report.Rows)-1].Size > 1<<20 && cut {
				t.Errorf("note printed %v, last size %d; text:\n%s", cut, o.report.Rows[len(o.report.Rows)-1].Size, o.text)
			}
		})
	}
}

// TestMinBusBw: with NCCL_TESTS_MIN_BW set, the footer says OK or FAILED after the average
// bus bandwidth, -J's average_bus_bandwidth.okay is "true" or "false", and a sweep whose
// average is below 90 % of it exits 1 on every rank with a line naming the variable; under
// the main command and under nccl-tests' program name alike.
func TestMinBusBw(t *testing.T) {
	j := newJob(t, 2)
	setFaults(t, nil)
	dir := t.TempDir()
	tests := []struct {
		name, minBw string
		argv0       []string // how the process was started: the main command or a drop-in name
		code        int
		footer      string
		okay        string
	}{
		{"met, main command", "0", []string{"mscclpp-bench", "allreduce"}, cli.ExitOK, " OK\n", `"okay": "true"`},
		{"missed, main command", "1e9", []string{"mscclpp-bench", "allreduce"}, cli.ExitFailure, " FAILED\n", `"okay": "false"`},
		{"met, all_reduce_perf", "0", []string{"/usr/local/bin/all_reduce_perf"}, cli.ExitOK, " OK\n", `"okay": "true"`},
		{"missed, all_reduce_perf", "1e9", []string{"/usr/local/bin/all_reduce_perf"}, cli.ExitFailure, " FAILED\n", `"okay": "false"`},
		{"unset", "", []string{"/usr/local/bin/all_reduce_perf"}, cli.ExitOK, " \n", `"okay": "unchecked"`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("NCCL_TESTS_MIN_BW", tt.minBw)
			path := filepath.Join(dir, strconv.Itoa(i)+".json")
			argv := append(slices.Clone(tt.argv0), "-k", "hostsum", "-d", "float", "-b", "64", "-e", "4096", "-f", "64", "-n", "2", "-w", "1", "-J", path)
			codes, stderrs, stdouts := make([]int, 2), make([]string, 2), make([]string, 2)
			bounded.Ranks(t, 2, 60*time.Second, func(r int) error {
				var stdout, stderr bytes.Buffer
				runner := j.runner(r, &stdout)
				codes[r] = cli.MainArgv(cli.App{Name: "mscclpp-bench", Version: "test", Run: runner, Stdout: &stdout, Stderr: &stderr}, argv)
				stderrs[r], stdouts[r] = stderr.String(), stdout.String()
				return nil
			})
			for r := range codes {
				wantErr := tt.code != cli.ExitOK
				gotErr := strings.Contains(stderrs[r], "average bus bandwidth") && strings.Contains(stderrs[r], "below 90 % of NCCL_TESTS_MIN_BW=1e+09")
				if codes[r] != tt.code || gotErr != wantErr {
					t.Errorf("rank %d: exit %d, stderr %q; want exit %d", r, codes[r], stderrs[r], tt.code)
				}
			}
			var avg string
			for _, line := range strings.SplitAfter(stdouts[0], "\n") {
				if strings.HasPrefix(line, "# Avg bus bandwidth") {
					avg = line
				}
			}
			if !strings.HasSuffix(avg, tt.footer) {
				t.Errorf("footer line %q, want it to end in %q; output:\n%s", avg, tt.footer, stdouts[0])
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, after, _ := strings.Cut(string(data), `"average_bus_bandwidth"`)
			if obj, _, _ := strings.Cut(after, "}"); !strings.Contains(obj, tt.okay) {
				t.Errorf("-J average_bus_bandwidth %s, want %s", obj, tt.okay)
			}
		})
	}
}

// runner is what the worker binary runs for rank r of j: the sweep on the stand-in GPU, with
// rank 0's report into stdout and its -J file written (the other ranks print nothing).
func (j *job) runner(r int, stdout io.Writer) func(context.Context, *cli.Plan) error {
	return func(_ context.Context, plan *cli.Plan) error {
		cfg := plan.Collective
		out := io.Discard
		if r == 0 {
			out = stdout
		}
		return Run(Rank{Cfg: cfg, Args: plan.Args, GPU: j.gpus[r], Mesh: j.meshes[r], Stream: 1, SMs: 4, Out: out,
			Header: func(name string) results.Header { return results.Header{Program: "test", Collective: name} },
			WriteJSON: func(rep *results.Report) error {
				if r != 0 {
					return nil
				}
				return safefile.Write(cfg.JSONPath, func(w io.Writer) error { return results.WriteJSON(w, rep) })
			}})
	}
}
