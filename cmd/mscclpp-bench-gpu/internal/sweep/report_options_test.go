package sweep

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// TestRunNCCLTestsOptions runs the stand-in sweep with nccl-tests' reporting options and
// checks they reach the report: per-iteration events and statistics (-I, -K) in the text
// and the JSON, cputime (-C), timestamps (-S), the memory line (-M), misaligned buffers
// that still verify (-u), and blocking mode 3 (-z).
func TestRunNCCLTestsOptions(t *testing.T) {
	j := newJob(t, 2)
	setFaults(t, nil)
	cfg := config("allreduce", "hostsum", "float", 1)
	cfg.Iters = 5
	o := &cfg.NCCLTests
	o.PerIter, o.PerIterSkip, o.CPUTime, o.Timestamps, o.Memory, o.Unalign = true, 1, true, true, true, 4
	o.Notes = []string{"-R 1 (local_register) does not apply"}
	out := run(t, j, cfg)
	for r, err := range out.errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	wantLines := []string{
		"unalign: 4\n",
		"# Per-Iteration Report: CUDA event timing; i_* uses max over process rows; summary skips first 1 iterations \n",
		"# -R 1 (local_register) does not apply\n",
		"cputime   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%  cputime",
		"i_cv%           timestamp\n",
		"# GPU memory usage     : Initialization 2.00 MB | User-Allocated 0.00 B | Collective 0.00 B | Total  2.00 MB\n",
	}
	for _, w := range wantLines {
		if !strings.Contains(out.text, w) {
			t.Errorf("text lacks %q:\n%s", w, out.text)
		}
	}
	rows := 0
	for _, line := range strings.Split(out.text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rows++
		// 5 leading columns, 2 x (4 + 4 per-iteration), date and time
		if f := strings.Fields(line); len(f) != 23 || f[21][4] != '-' {
			t.Errorf("data line with %d fields, want 23 ending in a timestamp: %q", len(f), line)
		}
	}
	if rows != 2 || out.report == nil || len(out.report.Rows) != 2 {
		t.Fatalf("%d data lines, report %v", rows, out.report)
	}
	for _, row := range out.report.Rows {
		for _, p := range []*results.Placement{row.OutOfPlace, row.InPlace} {
			s := p.PerIter
			if p.Wrong != 0 || p.CPUTimeUs <= 0 || s == nil || len(s.Times) != 5 || len(s.PerRank) != 2 || s.Skipped != 1 ||
				!(s.Min > 0 && s.Min <= s.P50 && s.P50 <= s.Max) {
				t.Errorf("size %d: wrong %d cputime %g per-iteration %+v", row.Size, p.Wrong, p.CPUTimeUs, s)
			}
		}
		if row.Timestamp.IsZero() {
			t.Errorf("size %d has no timestamp", row.Size)
		}
	}
	var js bytes.Buffer
	if err := results.WriteJSON(&js, out.report); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"per_iter_timing": "true"`, `"per_iter_skip": 1`, `"cpu_time": `, `"out_of_place_per_iter": {`, `"in_place_per_iter": {`, `"per_process_max_times_us": [`} {
		if !strings.Contains(js.String(), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}

	cfg = config("allreduce", "hostsum", "float", 1)
	cfg.Iters, cfg.Blocking, cfg.NCCLTests.PerIter = 4, 3, true
	out = run(t, j, cfg)
	for r, err := range out.errs {
		if err != nil {
			t.Fatalf("-z 3, rank %d: %v", r, err)
		}
	}
	if !strings.Contains(out.text, "# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier \n") {
		t.Errorf("-z 3: no blocking line:\n%s", out.text)
	}
	for _, row := range out.report.Rows {
		if s := row.InPlace.PerIter; s == nil || len(s.Times) != 4 || row.InPlace.TimeUs <= 0 {
			t.Errorf("-z 3 size %d: time %g per-iteration %+v", row.Size, row.InPlace.TimeUs, s)
		}
	}
}
