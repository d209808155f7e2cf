package results

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

// optionsPrefix names nccl-tests' runs with 2.19.6's reporting options (shared/baselines/
// all-collectives): -I 1 -C 1 -S 1 -M 1 together, and -z 1.
const optionsPrefix = "testdata/h200x2-nccl2.28.3-mpi-"

func readOptionsReport(t *testing.T, name string) *Report {
	t.Helper()
	return readReport(t, optionsPrefix+name+".json")
}

// TestTextGoldenOptions renders the JSON of nccl-tests runs with -I/-C/-S/-M and with -z 1,
// and of gather, scatter, alltoallv and hypercube, and compares the text byte for byte with what nccl-tests printed. The JSON holds every
// figure of the table except the timestamps and the memory report, which nccl-tests only
// prints: those are taken from the text.
func TestTextGoldenOptions(t *testing.T) {
	tests := []struct {
		name       string
		timestamps bool
		memory     *MemoryUsage
		// rowsFromText takes each row's figures from the text: the JSON keeps 6 decimals,
		// and a time such as 0.2450004 (printed 0.25) is 0.245 there (which prints 0.24)
		rowsFromText bool
	}{
		{"I1C1S1M1_all_reduce", true, &MemoryUsage{Init: 386 << 20, User: 6 << 20, Collective: 474 << 20}, false},
		{"z1_all_reduce", false, nil, false},
		// the collectives whose layouts differ from all-reduce's: a root column that is -r
		// (gather, scatter), in-place #wrong N/A (alltoallv), a blank redop (hypercube)
		{"G0_gather", false, nil, true},
		{"G0_scatter", false, nil, true},
		{"G0_alltoallv", false, nil, true},
		{"G0_hypercube", false, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := os.ReadFile(optionsPrefix + tt.name + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			r := readOptionsReport(t, tt.name)
			h := nccltestsHeader(r)
			h.Timestamps = tt.timestamps
			var data []string
			for _, line := range strings.Split(string(want), "\n") {
				if line != "" && !strings.HasPrefix(line, "#") {
					data = append(data, line)
				}
			}
			if len(data) != len(r.Rows) {
				t.Fatalf("%d data lines, %d JSON results", len(data), len(r.Rows))
			}
			var buf bytes.Buffer
			p := NewTextPrinter(&buf)
			p.Note("Writing JSON output to h200x2-nccl2.28.3-mpi-%s.json", tt.name)
			p.Header(h)
			for i, row := range r.Rows {
				if tt.rowsFromText {
					row = parseBaselineRow(t, data[i])
				}
				if tt.timestamps {
					line := data[i]
					ts, err := time.ParseInLocation(TimestampLayout, line[len(line)-19:], time.Local)
					if err != nil {
						t.Fatal(err)
					}
					row.Timestamp = ts
				}
				p.Row(row)
			}
			f := r.Footer
			f.Memory = tt.memory
			p.Footer(f)
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			compareLines(t, buf.String(), string(want))
		})
	}
}

// TestWriteJSONReproducesOptionsBaseline reads nccl-tests' -J files of those runs and
// writes them back byte for byte (gather's and scatter's root, alltoallv's null in-place
// nwrong, hypercube's empty redop): cpu_time, the *_per_iter objects with every iteration
// and every process's times, blocking_collectives and per_iter_timing in config, env.
func TestWriteJSONReproducesOptionsBaseline(t *testing.T) {
	for _, name := range []string{"I1C1S1M1_all_reduce", "z1_all_reduce", "G0_gather", "G0_scatter", "G0_alltoallv", "G0_hypercube"} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(optionsPrefix + name + ".json")
			if err != nil {
				t.Fatal(err)
			}
			r := readOptionsReport(t, name)
			r.Collective = ""
			var buf bytes.Buffer
			if err := WriteJSON(&buf, r); err != nil {
				t.Fatal(err)
			}
			compareLines(t, strings.TrimRight(buf.String(), "\n"), strings.TrimRight(string(want), "\n"))
		})
	}
}

// TestNewIterStatsMatchesNCCLTests recomputes every per-iteration record of nccl-tests'
// -I run from its per-process times: the per-iteration maxima and each statistic.
func TestNewIterStatsMatchesNCCLTests(t *testing.T) {
	r := readOptionsReport(t, "I1C1S1M1_all_reduce")
	n := 0
	for _, row := range r.Rows {
		for _, pl := range []*Placement{row.OutOfPlace, row.InPlace} {
			want := pl.PerIter
			if want == nil || len(want.PerRank) != 2 {
				t.Fatalf("size %d: no per-iteration record of two processes", row.Size)
			}
			got, err := NewIterStats(want.PerRank, want.Skipped)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want.Times {
				if got.Times[i] != want.Times[i] {
					t.Errorf("size %d iteration %d: %g, want %g", row.Size, i, got.Times[i], want.Times[i])
				}
			}
			figures := []struct {
				name      string
				got, want float64
			}{{"min", got.Min, want.Min}, {"max", got.Max, want.Max}, {"avg", got.Avg, want.Avg},
				{"p50", got.P50, want.P50}, {"p95", got.P95, want.P95}, {"p99", got.P99, want.P99},
				{"stdev", got.Stdev, want.Stdev}, {"cv", got.CVPct, want.CVPct}}
			for _, f := range figures {
				// The file's times have six decimals, rounded from nccl-tests' own doubles:
				// statistics over them agree to about 1e-6.
				if math.Abs(f.got-f.want) > 1e-5 {
					t.Errorf("size %d %s = %.7f, want %.6f", row.Size, f.name, f.got, f.want)
				}
			}
			n++
		}
	}
	if n != 12 {
		t.Errorf("checked %d records, want 12", n)
	}
}

func TestNewIterStatsSkipAndErrors(t *testing.T) {
	s, err := NewIterStats([][]float64{{100, 1, 2, 3, 4}, {1, 5, 1, 1, 1}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if s.Min != 2 || s.Max != 5 || s.Avg != 3.5 || s.P50 != 4 || s.Times[0] != 100 || s.Skipped != 1 {
		t.Errorf("stats = %+v", s)
	}
	if one, _ := NewIterStats([][]float64{{1, 2}}, 0); one.PerRank != nil {
		t.Errorf("one rank: PerRank %v, want none (nccl-tests leaves it out)", one.PerRank)
	}
	for _, bad := range []struct {
		times [][]float64
		skip  int
	}{{nil, 0}, {[][]float64{{1, 2}}, 2}, {[][]float64{{1, 2}}, -1}, {[][]float64{{1, 2}, {1}}, 0}} {
		if _, err := NewIterStats(bad.times, bad.skip); err == nil {
			t.Errorf("NewIterStats(%v, %d) accepted", bad.times, bad.skip)
		}
	}
}

func TestFormatMemory(t *testing.T) {
	tests := []struct {
		bytes int64
		want  string
	}{
		{0, "0.00 B"}, {512, "512 B"}, {1023, "1023 B"}, {1024, "1.00 KB"}, {15 << 10, "15.0 KB"},
		{6 << 20, "6.00 MB"}, {386 << 20, "386 MB"}, {866 << 20, "866 MB"}, {3 << 30, "3.00 GB"},
		{(3 << 30) / 2 * 100, "150 GB"},
	}
	for _, tt := range tests {
		if got := FormatMemory(tt.bytes); got != tt.want {
			t.Errorf("FormatMemory(%d) = %q, want %q", tt.bytes, got, tt.want)
		}
	}
}

// TestIterPercentilesAtUsualCounts: nearest-rank percentiles (the ceil(p*n/100)-th smallest
// time, nccl-tests' definition; p50 is its sorted[n/2]) at the iteration counts scripts
// use, nccl-tests' default -n 20 first, with and without -K, the times shuffled and split
// over two ranks. The expected figures are written out, not computed by the formula.
func TestIterPercentilesAtUsualCounts(t *testing.T) {
	tests := []struct {
		n, skip       int
		p50, p95, p99 float64
	}{
		{20, 0, 11, 19, 20}, // p95: the 19th of 20, p99: the 20th
		{20, 3, 12, 20, 20}, // 17 left (4..20): p50 their 9th, p95 the 17th (ceil 16.15)
		{50, 0, 26, 48, 50},
		{100, 0, 51, 95, 99},
		{10, 0, 6, 10, 10},
		{7, 0, 4, 7, 7},
		{2, 0, 2, 2, 2},
		{1, 0, 1, 1, 1},
		{200, 0, 101, 190, 198},
	}
	for _, tt := range tests {
		// Iteration i takes i+1 µs, in a shuffled order; the skipped ones are the first
		// in time order and the fastest, so that leaving them out moves every figure.
		r := rand.New(rand.NewPCG(uint64(tt.n), 7))
		order := r.Perm(tt.n - tt.skip)
		rank0, rank1 := make([]float64, tt.n), make([]float64, tt.n)
		for i := range tt.skip {
			rank0[i] = float64(i + 1)
		}
		for i, v := range order {
			rank0[tt.skip+i] = float64(tt.skip + v + 1)
		}
		for i := range rank1 { // rank 1 is faster except at odd iterations, where it sets the time
			rank1[i] = rank0[i] / 2
			if i%2 == 1 {
				rank1[i], rank0[i] = rank0[i], rank0[i]/2
			}
		}
		s, err := NewIterStats([][]float64{rank0, rank1}, tt.skip)
		if err != nil {
			t.Fatal(err)
		}
		if s.P50 != tt.p50 || s.P95 != tt.p95 || s.P99 != tt.p99 || s.Max != float64(tt.n) || s.Min != float64(tt.skip+1) {
			t.Errorf("-n %d -K %d: min %g p50 %g p95 %g p99 %g max %g; want %d, %g, %g, %g, %d",
				tt.n, tt.skip, s.Min, s.P50, s.P95, s.P99, s.Max, tt.skip+1, tt.p50, tt.p95, tt.p99, tt.n)
		}
	}
}
