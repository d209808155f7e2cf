package compare

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/results"
)

const (
	ncclAllReduce = "../results/testdata/h200x2-nccl2.28.3-mpi_all_reduce.json"
	ncclAllGather = "../results/testdata/h200x2-nccl2.28.3-mpi_all_gather.json"
	oursAllReduce = "testdata/synthetic-ours_all_reduce.json"
)

// devices returns n devices named model on host.
func devices(n int, model, host string) []results.Device {
	out := make([]results.Device, n)
	for i := range out {
		out[i] = results.Device{Rank: i, Pid: 100 + i, Hostname: host, Device: i, BusID: "0000:00:06", Name: model}
	}
	return out
}

// report returns an all-reduce report on two H200s holding rows.
func report(rows ...results.Row) *results.Report {
	return &results.Report{
		Header: results.Header{Program: "mscclpp-bench", Collective: "all_reduce_perf", Devices: devices(2, "NVIDIA H200", "vm")},
		Rows:   rows,
	}
}

// pl returns a checked placement.
func pl(timeUs, busBw float64) *results.Placement {
	return &results.Placement{TimeUs: timeUs, AlgBw: busBw, BusBw: busBw, Wrong: 0}
}

// row returns a float/sum row of algorithm alg with both placements (ip
// may be nil).
func row(alg string, size int64, oop, ip *results.Placement) results.Row {
	return results.Row{Size: size, Count: size / 4, Type: "float", Op: "sum", Root: -1, OutOfPlace: oop, InPlace: ip, Algorithm: alg}
}

// readReport reads a JSON results file.
func readReport(t *testing.T, path string) *results.Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := results.ReadJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// near reports whether a and b agree to 1e-6 (or are both NaN).
func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) < 1e-6
}

func TestCompareVerdicts(t *testing.T) {
	const small, large = 4096, 64 << 20
	nan := math.NaN()
	withWrong := func(p *results.Placement, n int64) *results.Placement { p.Wrong = n; return p }
	tests := []struct {
		name       string
		size       int64
		base, cur  *results.Placement
		opt        func(*Options)
		metric     string
		verdict    Verdict
		change     float64
		wantNote   string
		higherBest bool
	}{
		{name: "time improved", size: small, base: pl(100, 1), cur: pl(80, 1), metric: MetricTime, verdict: Improved, change: -0.2},
		{name: "time regressed", size: small, base: pl(100, 1), cur: pl(120, 1), metric: MetricTime, verdict: Regressed, change: 0.2},
		{name: "time within noise", size: small, base: pl(100, 1), cur: pl(110, 1), metric: MetricTime, verdict: OK, change: 0.1},
		{name: "time at tolerance", size: small, base: pl(100, 1), cur: pl(115, 1), metric: MetricTime, verdict: OK, change: 0.15},
		{name: "time at tolerance after rounding", size: small, base: pl(10.7, 1), cur: pl(12.305, 1), metric: MetricTime, verdict: OK, change: 0.15},
		{name: "busbw at tolerance after rounding", size: large, base: pl(1, 1.1), cur: pl(1, 1.045), metric: MetricBusBw, verdict: OK, change: -0.05, higherBest: true},
		{name: "time faster at tolerance", size: small, base: pl(100, 1), cur: pl(85, 1), metric: MetricTime, verdict: OK, change: -0.15},
		{name: "busbw improved", size: large, base: pl(100, 200), cur: pl(100, 220), metric: MetricBusBw, verdict: Improved, change: 0.1, higherBest: true},
		{name: "busbw regressed", size: large, base: pl(100, 200), cur: pl(100, 180), metric: MetricBusBw, verdict: Regressed, change: -0.1, higherBest: true},
		{name: "busbw within noise", size: large, base: pl(100, 200), cur: pl(100, 194), metric: MetricBusBw, verdict: OK, change: -0.03, higherBest: true},
		{name: "busbw at tolerance", size: large, base: pl(100, 200), cur: pl(100, 190), metric: MetricBusBw, verdict: OK, change: -0.05, higherBest: true},
		// Just below the bound the row is latency-bound: only time counts.
		{name: "latency-bound ignores busbw", size: 1<<20 - 1, base: pl(10, 100), cur: pl(10, 50), metric: MetricTime, verdict: OK, change: 0},
		// At the bound it is bandwidth-bound: only busbw counts.
		{name: "bandwidth-bound ignores time", size: 1 << 20, base: pl(10, 100), cur: pl(20, 100), metric: MetricBusBw, verdict: OK, change: 0, higherBest: true},
		{name: "bandwidth-bound regressed", size: 1 << 20, base: pl(10, 100), cur: pl(10, 50), metric: MetricBusBw, verdict: Regressed, change: -0.5, higherBest: true},
		{name: "custom bound", size: large, base: pl(100, 200), cur: pl(130, 150), opt: func(o *Options) { o.LatencyBoundBelow = 1 << 30 }, metric: MetricTime, verdict: Regressed, change: 0.3},
		{name: "zero bound", size: small, base: pl(100, 10), cur: pl(100, 12), opt: func(o *Options) { o.LatencyBoundBelow = 0 }, metric: MetricBusBw, verdict: Improved, change: 0.2, higherBest: true},
		{name: "custom time tolerance", size: small, base: pl(100, 1), cur: pl(120, 1), opt: func(o *Options) { o.TimeTolerance = 0.25 }, metric: MetricTime, verdict: OK, change: 0.2},
		{name: "zero busbw tolerance", size: large, base: pl(100, 200), cur: pl(100, 199), opt: func(o *Options) { o.BusBwTolerance = 0 }, metric: MetricBusBw, verdict: Regressed, change: -0.005, higherBest: true},
		{name: "wrong but faster", size: small, base: pl(100, 1), cur: withWrong(pl(50, 2), 3), metric: MetricTime, verdict: Wrong, change: -0.5, wantNote: "3 wrong elements"},
		{name: "unchecked is not wrong", size: small, base: pl(100, 1), cur: withWrong(pl(100, 1), -1), metric: MetricTime, verdict: OK, change: 0},
		{name: "baseline wrong only", size: small, base: withWrong(pl(100, 1), 5), cur: pl(100, 1), metric: MetricTime, verdict: OK, change: 0},
		{name: "zero baseline busbw", size: large, base: pl(100, 0), cur: pl(100, 10), metric: MetricBusBw, verdict: NA, change: nan, wantNote: "baseline busbw is 0", higherBest: true},
		{name: "zero baseline time", size: small, base: pl(0, 1), cur: pl(10, 1), metric: MetricTime, verdict: NA, change: nan, wantNote: "baseline time is 0"},
		{name: "NaN baseline", size: small, base: pl(nan, 1), cur: pl(10, 1), metric: MetricTime, verdict: NA, change: nan, wantNote: "baseline time is NaN"},
		{name: "NaN current", size: large, base: pl(100, 5), cur: pl(100, nan), metric: MetricBusBw, verdict: Regressed, change: nan, wantNote: "current busbw is NaN", higherBest: true},
		{name: "zero current busbw", size: large, base: pl(100, 5), cur: pl(100, 0), metric: MetricBusBw, verdict: Regressed, change: -1, higherBest: true},
		{name: "wrong and NaN", size: small, base: pl(0, 1), cur: withWrong(pl(1, 1), 1), metric: MetricTime, verdict: Wrong, change: nan, wantNote: "baseline time is 0; 1 wrong elements"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := DefaultOptions()
			if tt.opt != nil {
				tt.opt(&opt)
			}
			res, err := Compare(report(row("", tt.size, tt.base, nil)), report(row("", tt.size, tt.cur, nil)), opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != 1 {
				t.Fatalf("got %d rows, want 1: %+v", len(res.Rows), res.Rows)
			}
			r := res.Rows[0]
			if r.Metric != tt.metric || r.Verdict != tt.verdict || !near(r.Change, tt.change) || r.HigherIsBetter != tt.higherBest {
				t.Errorf("got metric %s, verdict %s, change %v, higher is better %v; want %s, %s, %v, %v",
					r.Metric, r.Verdict, r.Change, r.HigherIsBetter, tt.metric, tt.verdict, tt.change, tt.higherBest)
			}
			if r.Note != tt.wantNote {
				t.Errorf("note %q, want %q", r.Note, tt.wantNote)
			}
			if got, want := res.Failed(), tt.verdict.Failure(); got != want {
				t.Errorf("Failed() = %v, want %v", got, want)
			}
			wantReg := 0
			if tt.verdict == Regressed {
				wantReg = 1
			}
			if res.Regressed() != wantReg {
				t.Errorf("Regressed() = %d, want %d", res.Regressed(), wantReg)
			}
		})
	}
}

func TestCompareUnits(t *testing.T) {
	res, err := Compare(report(row("", 8, pl(10, 1), nil), row("", 8<<20, pl(10, 1), nil)),
		report(row("", 8, pl(10, 1), nil), row("", 8<<20, pl(10, 1), nil)), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Rows[0].Unit + " " + res.Rows[1].Unit; got != "us GB/s" {
		t.Errorf("units %q, want %q", got, "us GB/s")
	}
	if tol := res.Rows[0].Tolerance; tol != 0.15 {
		t.Errorf("time tolerance %v, want 0.15", tol)
	}
	if tol := res.Rows[1].Tolerance; tol != 0.05 {
		t.Errorf("busbw tolerance %v, want 0.05", tol)
	}
}

func TestCompareMissingAndNew(t *testing.T) {
	base := report(
		row("rsag", 1<<20, pl(10, 100), pl(10, 100)),
		row("rsag", 2<<20, pl(20, 100), pl(20, 100)),
		row("rsag", 3<<20, pl(30, 100), nil),
	)
	// A half row of the same size: another key, missing too.
	base.Rows = append(base.Rows, results.Row{Size: 1 << 20, Type: "half", Op: "sum", Root: -1, Algorithm: "rsag", OutOfPlace: pl(5, 1)})
	cur := report(
		row("rsag", 2<<20, pl(20, 100), nil),         // in-place went missing
		row("rsag", 3<<20, pl(30, 100), pl(30, 100)), // in-place is new
		row("rsag", 4<<20, pl(40, 100), pl(40, 100)), // new row
	)

	res, err := Compare(base, cur, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name    string
		verdict Verdict
	}{
		{"all_reduce_perf/rsag/float/sum/out-of-place/1048576", Missing},
		{"all_reduce_perf/rsag/float/sum/in-place/1048576", Missing},
		{"all_reduce_perf/rsag/float/sum/out-of-place/2097152", OK},
		{"all_reduce_perf/rsag/float/sum/in-place/2097152", Missing},
		{"all_reduce_perf/rsag/float/sum/out-of-place/3145728", OK},
		{"all_reduce_perf/rsag/half/sum/out-of-place/1048576", Missing},
		{"all_reduce_perf/rsag/float/sum/in-place/3145728", New},
		{"all_reduce_perf/rsag/float/sum/out-of-place/4194304", New},
		{"all_reduce_perf/rsag/float/sum/in-place/4194304", New},
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("got %d rows, want %d", len(res.Rows), len(want))
	}
	for i, w := range want {
		r := res.Rows[i]
		if r.Name() != w.name || r.Verdict != w.verdict {
			t.Errorf("row %d: %s %s, want %s %s", i, r.Name(), r.Verdict, w.name, w.verdict)
		}
		switch r.Verdict {
		case Missing:
			if math.IsNaN(r.Baseline) || !math.IsNaN(r.Current) || !math.IsNaN(r.Change) {
				t.Errorf("row %d: missing row has baseline %v, current %v, change %v", i, r.Baseline, r.Current, r.Change)
			}
		case New:
			if !math.IsNaN(r.Baseline) || math.IsNaN(r.Current) || !math.IsNaN(r.Change) {
				t.Errorf("row %d: new row has baseline %v, current %v, change %v", i, r.Baseline, r.Current, r.Change)
			}
		}
	}
	wantCounts := Counts{OK: 2, Missing: 4, New: 3}
	if res.Counts != wantCounts {
		t.Errorf("counts %+v, want %+v", res.Counts, wantCounts)
	}
	if !res.Failed() {
		t.Error("Failed() = false with missing rows")
	}
	if got, want := res.Summary(), "compared 9 rows: 0 improved, 2 ok, 0 regressed, 4 missing, 3 new, 0 wrong"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
}

func TestCompareNewRows(t *testing.T) {
	tests := []struct {
		name   string
		wrong  int64 // wrong elements in the new row
		want   Counts
		failed bool
	}{
		{"new row passes", 0, Counts{OK: 1, New: 1}, false},
		{"unchecked new row passes", -1, Counts{OK: 1, New: 1}, false},
		{"new row with wrong elements fails", 4, Counts{OK: 1, Wrong: 1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := report(row("rsag", 1<<20, pl(10, 100), nil))
			cur := report(row("rsag", 1<<20, pl(10, 100), nil), row("ll8", 1<<20, pl(10, 100), nil))
			cur.Rows[1].OutOfPlace.Wrong = tt.wrong
			res, err := Compare(base, cur, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed() != tt.failed || res.Counts != tt.want {
				t.Errorf("Failed() = %v, counts %+v; want %v, %+v", res.Failed(), res.Counts, tt.failed, tt.want)
			}
			if r := res.Rows[1]; r.Wrong != tt.wrong || !math.IsNaN(r.Baseline) || r.Current != 100 {
				t.Errorf("new row: wrong %d, baseline %v, current %v", r.Wrong, r.Baseline, r.Current)
			}
		})
	}
}

func TestCompareAlgorithmMatching(t *testing.T) {
	tests := []struct {
		name         string
		anyAlgorithm bool
		base, cur    []string // algorithms of one 1 MiB row each
		want         Counts
		wantErr      error
	}{
		{"same algorithm", false, []string{"rsag"}, []string{"rsag"}, Counts{OK: 1}, nil},
		{"nccl baseline matches every algorithm", false, []string{""}, []string{"rsag", "ll8", "port"}, Counts{OK: 3}, nil},
		{"nccl against nccl", false, []string{""}, []string{""}, Counts{OK: 1}, nil},
		{"algorithms differ", false, []string{"rsag", "ll8"}, []string{"rsag", "port"}, Counts{OK: 1, Missing: 1, New: 1}, nil},
		{"any algorithm: auto choice changed", true, []string{"rsag"}, []string{"port"}, Counts{OK: 1}, nil},
		{"any algorithm: ours against nccl", true, []string{"rsag"}, []string{""}, Counts{OK: 1}, nil},
		{"any algorithm: several per size", true, []string{"rsag"}, []string{"rsag", "port"}, Counts{}, ErrDuplicate},
		{"any algorithm: several per size in the baseline", true, []string{"rsag", "port"}, []string{"rsag"}, Counts{}, ErrDuplicate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var base, cur []results.Row
			for _, a := range tt.base {
				base = append(base, row(a, 1<<20, pl(10, 100), nil))
			}
			for _, a := range tt.cur {
				cur = append(cur, row(a, 1<<20, pl(10, 100), nil))
			}
			opt := DefaultOptions()
			opt.AnyAlgorithm = tt.anyAlgorithm
			res, err := Compare(report(base...), report(cur...), opt)
			if tt.wantErr != nil || err != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("got error %v, want %v", err, tt.wantErr)
				}
				return
			}
			if res.Counts != tt.want {
				t.Errorf("counts %+v, want %+v", res.Counts, tt.want)
			}
		})
	}
}

func TestCompareAlgorithmsOnlyInBaseline(t *testing.T) {
	_, err := Compare(report(row("rsag", 1<<20, pl(10, 100), nil)), report(row("", 1<<20, pl(10, 100), nil)), DefaultOptions())
	if !errors.Is(err, ErrNoCommonRows) || !strings.Contains(err.Error(), "nccl-tests file as the baseline") {
		t.Errorf("got %v, want ErrNoCommonRows with a hint", err)
	}
}

func TestCompareConfiguration(t *testing.T) {
	rows := []results.Row{row("rsag", 1<<20, pl(10, 100), nil)}
	tests := []struct {
		name   string
		change func(r *results.Report)
		want   []string // substrings of the error; none: no error
	}{
		{"identical", func(*results.Report) {}, nil},
		{"hostnames differ", func(r *results.Report) { r.Devices = devices(2, "NVIDIA H200", "ci-runner") }, nil},
		{"collective spelled differently", func(r *results.Report) { r.Collective = "allreduce" }, nil},
		{"collective unknown", func(r *results.Report) { r.Collective = "" }, nil},
		{"no devices listed", func(r *results.Report) { r.Devices = nil }, nil},
		{"rank count", func(r *results.Report) { r.Devices = devices(8, "NVIDIA H200", "vm") },
			[]string{"rank count", "baseline 2", "current 8"}},
		{"GPU model", func(r *results.Report) { r.Devices = devices(2, "NVIDIA H100 80GB HBM3", "vm") },
			[]string{"GPU models", "baseline NVIDIA H200", "current NVIDIA H100 80GB HBM3"}},
		{"mixed GPU models", func(r *results.Report) { r.Devices[1].Name = "NVIDIA H100" },
			[]string{"GPU models", "current NVIDIA H100 + NVIDIA H200"}},
		{"collective", func(r *results.Report) { r.Collective = "all_gather_perf" },
			[]string{"collective", "baseline all_reduce_perf", "current all_gather_perf"}},
		{"several", func(r *results.Report) {
			r.Collective = "all_gather_perf"
			r.Devices = devices(4, "NVIDIA H100", "vm")
		}, []string{"collective", "rank count", "GPU models"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := report(rows...)
			tt.change(cur)
			res, err := Compare(report(rows...), cur, DefaultOptions())
			if tt.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if len(res.Warnings) != 0 || res.Counts != (Counts{OK: 1}) {
					t.Errorf("warnings %q, counts %+v; want none and 1 ok", res.Warnings, res.Counts)
				}
				return
			}
			if !errors.Is(err, ErrMismatch) {
				t.Fatalf("got error %v, want ErrMismatch", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is not one line", err)
			}
			opt := DefaultOptions()
			opt.Force = true
			res, err = Compare(report(rows...), cur, opt)
			if err != nil {
				t.Fatalf("with Force: %v", err)
			}
			if res.Counts != (Counts{OK: 1}) {
				t.Errorf("with Force: counts %+v, want 1 ok", res.Counts)
			}
			warnings := strings.Join(res.Warnings, "\n")
			for _, w := range tt.want {
				if !strings.Contains(warnings, w) {
					t.Errorf("with Force: warnings %q do not contain %q", warnings, w)
				}
			}
		})
	}
}

func TestCompareNoRowsInCommon(t *testing.T) {
	base := report(row("rsag", 1<<20, pl(10, 100), nil))
	cur := report(row("rsag", 2<<20, pl(10, 100), nil))
	if _, err := Compare(base, cur, DefaultOptions()); !errors.Is(err, ErrNoCommonRows) {
		t.Fatalf("got %v, want ErrNoCommonRows", err)
	}
	opt := DefaultOptions()
	opt.Force = true
	res, err := Compare(base, cur, opt)
	if err != nil {
		t.Fatalf("with Force: %v", err)
	}
	if res.Counts != (Counts{Missing: 1, New: 1}) || !res.Failed() || len(res.Warnings) != 1 {
		t.Errorf("with Force: counts %+v, failed %v, warnings %q", res.Counts, res.Failed(), res.Warnings)
	}
	// An empty current run: everything is missing.
	res, err = Compare(base, report(), opt)
	if err != nil {
		t.Fatalf("empty current with Force: %v", err)
	}
	if res.Counts != (Counts{Missing: 1}) {
		t.Errorf("empty current: counts %+v, want 1 missing", res.Counts)
	}
}

func TestCompareBadInput(t *testing.T) {
	good := report(row("rsag", 1<<20, pl(10, 100), nil))
	dup := report(row("rsag", 1<<20, pl(10, 100), nil), row("rsag", 1<<20, pl(11, 100), nil))
	pingDup := &results.Report{Header: good.Header, PingPong: []results.PingPongRow{
		{Pair: "0-1", Channel: "memory", Mode: "put", Size: 1024, BwGBs: 1},
		{Pair: "0-1", Channel: "memory", Mode: "put", Size: 1024, BwGBs: 2},
	}}
	forced := DefaultOptions()
	forced.Force = true
	tests := []struct {
		name      string
		base, cur *results.Report
		opt       Options
		sentinel  error
		want      string
	}{
		{"nil baseline", nil, good, DefaultOptions(), nil, "nil report"},
		{"nil current", good, nil, DefaultOptions(), nil, "nil report"},
		{"empty baseline", report(), good, forced, nil, "baseline has no result rows"},
		{"duplicate in baseline", dup, good, DefaultOptions(), ErrDuplicate, "baseline: duplicate row: algorithm rsag, type float, op sum, root -1, size 1048576"},
		{"duplicate in current", good, dup, forced, ErrDuplicate, "current: duplicate row"},
		{"duplicate ping-pong", pingDup, pingDup, DefaultOptions(), ErrDuplicate, "ping-pong pair 0-1, channel memory, mode put, size 1024"},
		{"negative time tolerance", good, good, Options{TimeTolerance: -0.1, BusBwTolerance: 0.05}, nil, "time tolerance -0.1"},
		{"NaN busbw tolerance", good, good, Options{TimeTolerance: 0.1, BusBwTolerance: math.NaN()}, nil, "bus bandwidth tolerance NaN"},
		{"infinite tolerance", good, good, Options{TimeTolerance: math.Inf(1)}, nil, "time tolerance +Inf"},
		{"negative bound", good, good, Options{LatencyBoundBelow: -1}, nil, "latency-bound size -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(tt.base, tt.cur, tt.opt)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
				t.Errorf("error %v does not wrap %v", err, tt.sentinel)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestCompareZeroSizeRowsSkipped(t *testing.T) {
	// nccl-tests' all_gather on two ranks starts with two rows of size 0.
	ag := readReport(t, ncclAllGather)
	if ag.Rows[0].Size != 0 || ag.Rows[1].Size != 0 {
		t.Fatalf("test data changed: first sizes %d, %d", ag.Rows[0].Size, ag.Rows[1].Size)
	}
	res, err := Compare(ag, ag, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * (len(ag.Rows) - 2); len(res.Rows) != want || res.Counts.OK != want {
		t.Errorf("got %d rows, counts %+v; want %d ok", len(res.Rows), res.Counts, want)
	}
}

func TestCompareNCCLBaseline(t *testing.T) {
	base := readReport(t, ncclAllReduce)
	cur := readReport(t, oursAllReduce)
	if base.Devices[0].Hostname == cur.Devices[0].Hostname {
		t.Fatal("test data should have different host names")
	}
	res, err := Compare(base, cur, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// 29 sizes x 2 placements for rsag, 17 sizes below 1 MiB x 2 for ll8.
	want := Counts{Improved: 35, OK: 55, Regressed: 2}
	if res.Counts != want {
		t.Errorf("counts %+v, want %+v", res.Counts, want)
	}
	if !res.Failed() || res.Regressed() != 2 {
		t.Errorf("Failed() = %v, Regressed() = %d; want true, 2", res.Failed(), res.Regressed())
	}
	byName := map[string]Row{}
	for _, r := range res.Rows {
		if r.BaselineAlgorithm != "" {
			t.Errorf("%s: baseline algorithm %q, want empty", r.Name(), r.BaselineAlgorithm)
		}
		byName[r.Name()] = r
	}
	checks := []struct {
		name    string
		metric  string
		verdict Verdict
		change  float64
	}{
		{"all_reduce_perf/ll8/float/sum/out-of-place/8", MetricTime, Improved, -0.2},
		{"all_reduce_perf/rsag/float/sum/in-place/8", MetricTime, OK, 0.05},
		{"all_reduce_perf/rsag/float/sum/out-of-place/1048576", MetricBusBw, OK, 0.02},
		{"all_reduce_perf/rsag/float/sum/in-place/268435456", MetricBusBw, Improved, 0.1},
		{"all_reduce_perf/rsag/float/sum/out-of-place/1073741824", MetricBusBw, Regressed, -0.1},
		{"all_reduce_perf/rsag/float/sum/out-of-place/2147483648", MetricBusBw, Regressed, -0.1},
	}
	for _, c := range checks {
		r, ok := byName[c.name]
		if !ok {
			t.Errorf("no row %s", c.name)
			continue
		}
		if r.Metric != c.metric || r.Verdict != c.verdict || math.Abs(r.Change-c.change) > 1e-3 {
			t.Errorf("%s: %s %s %+.4f, want %s %s %+.4f", c.name, r.Metric, r.Verdict, r.Change, c.metric, c.verdict, c.change)
		}
	}
	if _, ok := byName["all_reduce_perf/ll8/float/sum/out-of-place/1048576"]; ok {
		t.Error("ll8 has no 1 MiB row, yet one was compared")
	}

	// Wider tolerance: the two 10 % drops become noise.
	opt := DefaultOptions()
	opt.BusBwTolerance = 0.2
	if res, err = Compare(base, cur, opt); err != nil {
		t.Fatal(err)
	}
	if res.Failed() {
		t.Errorf("with 20%% busbw tolerance: counts %+v, want no failure", res.Counts)
	}
}

func TestComparePingPong(t *testing.T) {
	pp := func(mode string, size int64, lat, bw float64) results.PingPongRow {
		return results.PingPongRow{Pair: "0-1", Channel: "memory", Mode: mode, Size: size, TimeUs: 2 * lat, LatencyUs: lat, BwGBs: bw, Wrong: 0}
	}
	base := &results.Report{
		Header: results.Header{Collective: "pingpong", Devices: devices(2, "NVIDIA H200", "vm")},
		PingPong: []results.PingPongRow{
			pp("signal", 0, 1.0, 0),
			pp("signal-relaxed", 0, 1.0, 0),
			pp("put", 1<<20, 10, 100),
			pp("put-bidir", 1<<20, 10, 200),
			pp("put", 2<<20, 10, 100),
		},
	}
	cur := &results.Report{
		Header: base.Header,
		PingPong: []results.PingPongRow{
			pp("signal", 0, 1.3, 0),          // latency +30 %: regressed
			pp("signal-relaxed", 0, 0.95, 0), // within noise
			pp("put-bidir", 1<<20, 10, 230),  // +15 %: improved
			pp("put", 1<<20, 20, 97),         // -3 % bandwidth: ok; time ignored
			pp("put", 4<<20, 10, 100),        // new
		},
	}
	cur.PingPong[3].Wrong = -1
	res, err := Compare(base, cur, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name    string
		metric  string
		verdict Verdict
	}{
		{"pingpong/0-1/memory/signal/0", MetricLatency, Regressed},
		{"pingpong/0-1/memory/signal-relaxed/0", MetricLatency, OK},
		{"pingpong/0-1/memory/put/1048576", MetricBw, OK},
		{"pingpong/0-1/memory/put-bidir/1048576", MetricBw, Improved},
		{"pingpong/0-1/memory/put/2097152", MetricBw, Missing},
		{"pingpong/0-1/memory/put/4194304", MetricBw, New},
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("got %d rows, want %d", len(res.Rows), len(want))
	}
	for i, w := range want {
		r := res.Rows[i]
		if !r.PingPong || r.Name() != w.name || r.Metric != w.metric || r.Verdict != w.verdict {
			t.Errorf("row %d: %s %s %s, want %s %s %s", i, r.Name(), r.Metric, r.Verdict, w.name, w.metric, w.verdict)
		}
	}
	if r := res.Rows[0]; r.Unit != "us" || r.Tolerance != 0.15 || r.HigherIsBetter {
		t.Errorf("signal row: unit %s, tolerance %v, higher is better %v", r.Unit, r.Tolerance, r.HigherIsBetter)
	}
	if r := res.Rows[2]; r.Unit != "GB/s" || r.Tolerance != 0.05 || !r.HigherIsBetter {
		t.Errorf("put row: unit %s, tolerance %v, higher is better %v", r.Unit, r.Tolerance, r.HigherIsBetter)
	}
}

func TestRowName(t *testing.T) {
	tests := []struct {
		row  Row
		want string
	}{
		{Row{Collective: "all_reduce_perf", Algorithm: "rsag", Type: "float", Op: "sum", Root: -1, Placement: OutOfPlace, Size: 1048576},
			"all_reduce_perf/rsag/float/sum/out-of-place/1048576"},
		{Row{Collective: "all_gather_perf", Type: "half", Op: "none", Root: -1, Placement: InPlace, Size: 8},
			"all_gather_perf/default/half/none/in-place/8"},
		{Row{Collective: "broadcast_perf", Type: "float", Op: "none", Root: 3, Placement: InPlace, Size: 8},
			"broadcast_perf/default/float/none/root=3/in-place/8"},
		{Row{PingPong: true, Collective: "pingpong", Pair: "0-1", Channel: "port", Mode: "put", Size: 4096},
			"pingpong/0-1/port/put/4096"},
	}
	for _, tt := range tests {
		if got := tt.row.Name(); got != tt.want {
			t.Errorf("Name() = %q, want %q", got, tt.want)
		}
	}
}

func TestSummaryNA(t *testing.T) {
	res := &Result{Rows: make([]Row, 3), Counts: Counts{OK: 2, NA: 1}}
	if got, want := res.Summary(), "compared 3 rows: 0 improved, 2 ok, 0 regressed, 0 missing, 0 new, 0 wrong, 1 n/a"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
}

func TestCompareBrokenCurrentValues(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name string
		cur  *results.Placement
		want Verdict
	}{
		{"zero time (latency-bound)", pl(0, 0), Regressed},
		{"infinite time", pl(inf, 0), Regressed},
		{"NaN time", pl(math.NaN(), 0), Regressed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Compare(report(row("rsag", 1024, pl(10, 0.1), nil)), report(row("rsag", 1024, tt.cur, nil)), DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Rows[0].Verdict; got != tt.want || !res.Failed() {
				t.Errorf("verdict %s (failed %v), want %s", got, res.Failed(), tt.want)
			}
		})
	}
	// Bandwidth-bound: an infinite or NaN current bandwidth is no measurement either.
	for _, bw := range []float64{inf, math.NaN()} {
		res, err := Compare(report(row("rsag", 1<<30, pl(10, 300), nil)), report(row("rsag", 1<<30, pl(10, bw), nil)), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Rows[0].Verdict; got != Regressed {
			t.Errorf("current busbw %v: verdict %s, want regressed", bw, got)
		}
	}
}

func TestCompareNothingMatchedButWrong(t *testing.T) {
	bad := pl(10, 100)
	bad.Wrong = 3
	_, err := Compare(report(row("rsag", 1<<20, pl(10, 100), nil)), report(row("port", 1<<20, bad, nil)), DefaultOptions())
	if !errors.Is(err, ErrNoCommonRows) {
		t.Fatalf("got %v, want ErrNoCommonRows: a new row with wrong elements is still no match", err)
	}
}

func TestTableShowsChangedAlgorithm(t *testing.T) {
	opt := DefaultOptions()
	opt.AnyAlgorithm = true
	res, err := Compare(report(row("rsag", 1<<20, pl(10, 100), nil)), report(row("port", 1<<20, pl(10, 100), nil)), opt)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteTable(&b, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "rsag→port") {
		t.Errorf("table does not show the algorithm change:\n%s", b.String())
	}
}
