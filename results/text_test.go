package results

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const baselinePrefix = "testdata/h200x2-nccl2.28.3-mpi_"

// readBaselineReport loads one of the nccl-tests JSON baselines.
func readBaselineReport(t *testing.T, name string) *Report {
	t.Helper()
	return readReport(t, baselinePrefix+name+".json")
}

// readReport reads a JSON results file.
func readReport(t *testing.T, path string) *Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ReadJSON(f)
	if err != nil {
		t.Fatalf("ReadJSON(%s): %v", path, err)
	}
	return r
}

// nccltestsHeader turns a report read from an nccl-tests baseline into the
// header nccl-tests printed for it.
func nccltestsHeader(r *Report) Header {
	h := r.Header
	h.Program = "nccl-tests"
	h.Version = "2.19.6"
	h.Extra = "nccl-headers=22803 nccl-library=22803"
	return h
}

// TestTextGoldenFullFile renders the JSON baseline of a run and compares
// the result byte for byte with the text nccl-tests printed in that run.
func TestTextGoldenFullFile(t *testing.T) {
	for _, name := range []string{"all_reduce", "all_gather"} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(baselinePrefix + name + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			r := readBaselineReport(t, name)
			var buf bytes.Buffer
			p := NewTextPrinter(&buf)
			p.Note("Writing JSON output to /root/out/mpi_%s.json", name)
			p.Header(nccltestsHeader(r))
			for _, row := range r.Rows {
				p.Row(row)
			}
			p.Footer(r.Footer)
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			compareLines(t, buf.String(), string(want))
		})
	}
}

func compareLines(t *testing.T, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("line %d differs:\n got: %q\nwant: %q", i+1, g, w)
		}
	}
}

// parseBaselineRow reads an nccl-tests data line back into a Row.
func parseBaselineRow(t *testing.T, line string) Row {
	t.Helper()
	f := strings.Fields(line)
	if len(f) == 12 { // hypercube's blank redop column
		f = append(f[:3], append([]string{""}, f[3:]...)...)
	}
	if len(f) != 13 {
		t.Fatalf("unexpected data line %q", line)
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		return v
	}
	wrong := func(s string) int64 {
		if s == "N/A" {
			return -1
		}
		return int64(num(s))
	}
	pl := func(g []string) *Placement {
		return &Placement{TimeUs: num(g[0]), AlgBw: num(g[1]), BusBw: num(g[2]), Wrong: wrong(g[3])}
	}
	root, _ := strconv.Atoi(f[4])
	return Row{
		Size: int64(num(f[0])), Count: int64(num(f[1])), Type: f[2], Op: f[3], Root: root,
		OutOfPlace: pl(f[5:9]), InPlace: pl(f[9:13]),
	}
}

// TestTextGoldenDataRows re-renders every data line of the text baselines
// (including N/A and all-gather's zero-size rows) from the printed values.
func TestTextGoldenDataRows(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no baselines: %v", err)
	}
	for _, file := range files {
		if strings.Contains(file, "-I1") {
			continue // per-iteration columns: TestTextGoldenOptions renders that file whole
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, line := range strings.Split(string(data), "\n") {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			var buf bytes.Buffer
			NewTextPrinter(&buf).Row(parseBaselineRow(t, line))
			if got := strings.TrimSuffix(buf.String(), "\n"); got != line {
				t.Errorf("%s:\n got: %q\nwant: %q", file, got, line)
			}
			n++
		}
		if n == 0 {
			t.Errorf("%s: no data rows", file)
		}
	}
}

func TestTextHeaderLines(t *testing.T) {
	h := Header{
		Program: "mscclpp-bench", Version: "0.1.0", Extra: "cuda-driver=13000",
		Collective: "all_gather_perf", NThreads: 1, NGPUs: 1,
		MinBytes: 1024, MaxBytes: 1 << 30, StepBytes: 1 << 20,
		Warmup: 5, Iters: 20, AggIters: 1, Check: 1,
		Devices: []Device{
			{Rank: 0, Pid: 1471, Hostname: "vm", Device: 0, BusID: "0000:00:06", Name: "NVIDIA H200"},
			{Rank: 11, Group: 1, Pid: 123456, Hostname: "a-very-long-hostname", Device: 3, BusID: "0000:c1:00", Name: "NVIDIA H100 80GB HBM3"},
		},
	}
	want := `# mscclpp-bench version 0.1.0 cuda-driver=13000
# Collective test starting: all_gather_perf
# nThread 1 nGpus 1 minBytes 1024 maxBytes 1073741824 step: 1048576(bytes) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0
#
# Using devices
#  Rank  0 Group  0 Pid   1471 on         vm device  0 [0000:00:06] NVIDIA H200
#  Rank 11 Group  1 Pid 123456 on a-very-long-hostname device  3 [0000:c1:00] NVIDIA H100 80GB HBM3
#
# Reducing maxBytes to 536870912 due to memory limitation
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong 
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         
#  algorithm: ring
`
	var buf bytes.Buffer
	p := NewTextPrinter(&buf)
	p.Header(h)
	p.Note("")
	p.Note("Reducing maxBytes to %d due to memory limitation", 536870912)
	p.Algorithm("ring")
	compareLines(t, buf.String(), want)
}

func TestTextHeaderBinding(t *testing.T) {
	h := Header{Collective: "all_gather_perf", Devices: []Device{
		{Rank: 0, Hostname: "vm", BusID: "0000:00:06", Name: "NVIDIA H200", CPUs: "0", ProxyCPUs: "2 (own CPU)"},
		{Rank: 1, Hostname: "vm", BusID: "0000:00:07", Name: "NVIDIA H200", CPUs: "0-31", ProxyCPUs: "within the rank's CPUs"},
	}}
	var buf bytes.Buffer
	NewTextPrinter(&buf).Header(h)
	want := "# CPU binding (mpirun's; the proxy thread drives port channels)\n" +
		"#  Rank  0 CPUs 0 proxy 2 (own CPU)\n" +
		"#  Rank  1 CPUs 0-31 proxy within the rank's CPUs\n"
	if !strings.HasSuffix(buf.String(), want) {
		t.Errorf("header ends:\n%s\nwant suffix:\n%s", buf.String(), want)
	}
}

func TestTextRows(t *testing.T) {
	inPlace := &Placement{TimeUs: 11.12, AlgBw: 0.00072, BusBw: 0.00072, Wrong: 0}
	tests := []struct {
		name string
		row  Row
		want string
	}{
		{
			name: "both placements",
			row: Row{Size: 8, Count: 2, Type: "float", Op: "sum", Root: -1,
				OutOfPlace: &Placement{TimeUs: 12.08495, AlgBw: 0.000662, BusBw: 0.000662}, InPlace: inPlace},
			want: "           8             2     float     sum      -1    12.08    0.00    0.00       0    11.12    0.00    0.00       0",
		},
		{
			name: "no out-of-place",
			row:  Row{Size: 8, Count: 2, Type: "float", Op: "sum", Root: -1, InPlace: inPlace},
			want: "           8             2     float     sum      -1" + strings.Repeat(" ", 32) + "    11.12    0.00    0.00       0",
		},
		{
			name: "unchecked, rooted, big numbers",
			row: Row{Size: 2147483648, Count: 536870912, Type: "bfloat16", Op: "max", Root: 3,
				OutOfPlace: &Placement{TimeUs: 123456.7, AlgBw: 1234.5, BusBw: 999.999, Wrong: -1},
				InPlace:    &Placement{TimeUs: 1e9, AlgBw: 0.5, BusBw: 0.25, Wrong: 1234567}},
			want: "  2147483648     536870912  bfloat16     max       3   123457  1234.5  1000.0    N/A  1.0e+09    0.50    0.25  1.23457e+06",
		},
		{
			name: "no in-place",
			row: Row{Size: 1024, Count: 256, Type: "float", Op: "none", Root: -1,
				OutOfPlace: &Placement{TimeUs: 10.54, AlgBw: 0.1, BusBw: 0.1}},
			want: "        1024           256     float    none      -1    10.54    0.10    0.10       0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			NewTextPrinter(&buf).Row(tt.row)
			if got := buf.String(); got != tt.want+"\n" {
				t.Errorf("got  %q\nwant %q", got, tt.want+"\n")
			}
		})
	}
}

func TestTextFooter(t *testing.T) {
	tests := []struct {
		name   string
		footer Footer
		want   string
	}{
		{"ok", Footer{OutOfBounds: 0, AvgBusBw: 95.960195},
			"# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 95.9602 \n#\n# Collective test concluded: all_reduce_perf\n#\n\n"},
		{"failed", Footer{OutOfBounds: 3, AvgBusBw: 0},
			"# Out of bounds values : 3 FAILED\n# Avg bus bandwidth    : 0 \n#\n# Collective test concluded: all_reduce_perf\n#\n\n"},
		// NCCL_TESTS_MIN_BW=100: nccl-tests fails below 90 % of it, 90 itself passes
		{"min bw met", Footer{AvgBusBw: 95.960195, MinBusBw: 100, CheckBusBw: true},
			"# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 95.9602 OK\n#\n# Collective test concluded: all_reduce_perf\n#\n\n"},
		{"min bw at 90 %", Footer{AvgBusBw: 90, MinBusBw: 100, CheckBusBw: true},
			"# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 90 OK\n#\n# Collective test concluded: all_reduce_perf\n#\n\n"},
		{"min bw missed", Footer{AvgBusBw: 89.99, MinBusBw: 100, CheckBusBw: true},
			"# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 89.99 FAILED\n#\n# Collective test concluded: all_reduce_perf\n#\n\n"},
		{"min bw 0", Footer{AvgBusBw: 0, MinBusBw: 0, CheckBusBw: true},
			"# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0 OK\n#\n# Collective test concluded: all_reduce_perf\n#\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := NewTextPrinter(&buf)
			p.collective = "all_reduce_perf" // as set by Header
			p.Footer(tt.footer)
			if got := buf.String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestTextPrinterKeepsFirstError(t *testing.T) {
	fw := &failWriter{}
	p := NewTextPrinter(fw)
	p.Note("one")
	p.Note("two")
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Err() = %v, want wrapped write error", err)
	}
	if fw.n != 1 {
		t.Errorf("writes after the first error: got %d writes, want 1", fw.n)
	}
}

// TestAvgBusBwOkay: the JSON "okay" of average_bus_bandwidth is "unchecked" without
// NCCL_TESTS_MIN_BW, else "true" or "false" as the footer judges it, as nccl-tests writes it.
func TestAvgBusBwOkay(t *testing.T) {
	for _, tt := range []struct {
		footer Footer
		want   string
	}{
		{Footer{AvgBusBw: 5}, `"okay": "unchecked"`},
		{Footer{AvgBusBw: 5, MinBusBw: 5.5, CheckBusBw: true}, `"okay": "true"`},
		{Footer{AvgBusBw: 5, MinBusBw: 6, CheckBusBw: true}, `"okay": "false"`},
	} {
		var buf bytes.Buffer
		if err := WriteJSON(&buf, &Report{Header: Header{Collective: "all_reduce_perf"}, Footer: tt.footer}); err != nil {
			t.Fatal(err)
		}
		_, after, _ := strings.Cut(buf.String(), `"average_bus_bandwidth"`)
		if obj, _, _ := strings.Cut(after, "}"); !strings.Contains(obj, tt.want) {
			t.Errorf("%+v: average_bus_bandwidth %s, want %s", tt.footer, obj, tt.want)
		}
	}
}
