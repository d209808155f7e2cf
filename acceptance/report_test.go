package acceptance

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func evaluated(t *testing.T, change func(*Figures)) (Spec, Figures, []Check) {
	t.Helper()
	spec := h200(t)
	spec.Ranks = 2
	f := recorded(2)
	if change != nil {
		change(&f)
	}
	return spec, f, Evaluate(spec, f)
}

func TestWriteTable(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Figures)
		rows   []string // regular expressions, each matching one line
		last   string   // the last line
	}{
		{
			name: "pass",
			rows: []string{
				`^\+-+\+-+\+-+\+-+\+-+\+$`,
				`^\| +check +\| +pair/subject +\| +measured +\| +limit +\| +verdict +\|$`,
				`^\| ranks +\| vm +\| +2 \| == 2 +\| PASS +\|$`,
				`^\| GPU model +\| GPU 1 +\| +NVIDIA H200 \| == H200 SXM +\| PASS +\|$`,
				`^\| peer access +\| GPU 0-1 +\| +yes \| == yes +\| PASS +\|$`,
				`^\| NVLinks +\| GPU 0-1 +\| +18 links \| >= 18 links +\| PASS +\|$`,
				`^\| memory signal latency +\| 0-1 +\| +0.68 us \| <= 2 us +\| PASS +\|$`,
				`^\| port put bandwidth +\| 0-1 +\| +391.49 GB/s \| >= 320 GB/s +\| PASS +\|$`,
				`^\| data verification +\| 0-1 +\| +0 B \| == 0 B +\| PASS +\|$`,
				`^\| time +\| allreduce 8 +\| +2.42 us \| <= 10 us +\| PASS +\|$`,
				`^\| bus bandwidth +\| allgather 256M +\| +348.24 GB/s \| >= 300 GB/s +\| PASS +\|$`,
			},
			last: "acceptance: PASS (20 checks)",
		},
		{
			name: "fail",
			change: func(f *Figures) {
				f.Pairs[0].PortPutGBs = 120
				f.Pairs[0].Wrong = 12
				f.Collectives = f.Collectives[1:]
			},
			rows: []string{
				`^\| memory put bandwidth +\| 0-1 +\| +364.34 GB/s \| >= 300 GB/s +\| PASS +\|$`,
				`^\| port put bandwidth +\| 0-1 +\| +120 GB/s \| >= 320 GB/s +\| FAIL +\|$`,
				`^\| data verification +\| 0-1 +\| +12 B \| == 0 B +\| FAIL: 12 bytes wrong +\|$`,
				`^\| measurement +\| allreduce 8 +\| +none \| - +\| FAIL: not measured +\|$`,
			},
			last: "acceptance: FAIL: 3 of 19 checks failed; slowest/broken pairs: " +
				"0-1 (port put bandwidth 120 GB/s < 320, data verification: 12 bytes wrong); " +
				"other failures: allreduce 8 (measurement: not measured)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, checks := evaluated(t, tt.change)
			var b bytes.Buffer
			if err := WriteTable(&b, checks); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			// The header takes 3 lines, the bottom border 1, the summary 1.
			if want := len(checks) + 5; len(lines) != want {
				t.Errorf("%d lines, want %d:\n%s", len(lines), want, out)
			}
			for _, row := range tt.rows {
				if !regexp.MustCompile(`(?m)` + row).MatchString(out) {
					t.Errorf("no line matches %s in\n%s", row, out)
				}
			}
			if got := lines[len(lines)-1]; got != tt.last {
				t.Errorf("last line %q, want %q", got, tt.last)
			}
			if got, want := lines[len(lines)-1], Summary(checks); got != want {
				t.Errorf("last line %q is not Summary %q", got, want)
			}
		})
	}
}

func TestWriteTableWriteError(t *testing.T) {
	_, _, checks := evaluated(t, nil)
	if err := WriteTable(errWriter{}, checks); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("WriteTable to a failing writer: %v, want the write error", err)
	}
}

func TestWriteJSON(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Figures)
	}{
		{"pass", nil},
		{"fail", func(f *Figures) {
			f.Pairs[0] = PairFigures{A: 0, B: 1, Err: "timeout", Wrong: 3}
			f.Node.NVLinks, f.Node.NVMLError = nil, "NVML unavailable"
			f.Collectives[1].Wrong = 5
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, f, checks := evaluated(t, tt.change)
			r := Report{Spec: spec, Figures: f, Checks: checks, Pass: Passed(checks)}
			var b bytes.Buffer
			if err := WriteJSON(&b, r); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.HasPrefix(out, "{\n  \"spec\": {\n    \"model\": \"H200 SXM\",") || !strings.HasSuffix(out, "}\n") {
				t.Errorf("not indented JSON ending with a newline:\n%s", out)
			}
			for _, key := range []string{`"put_bytes": 268435456`, `"min_bus_bw": 280`, `"memory_signal_us": `, `"peer_access": [`, `"pass": `} {
				if !strings.Contains(out, key) {
					t.Errorf("JSON lacks %s", key)
				}
			}
			var back Report
			if err := json.Unmarshal(b.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, r) {
				t.Errorf("round trip:\n got %+v\nwant %+v", back, r)
			}
		})
	}
}

func TestWriteJSONErrors(t *testing.T) {
	spec, f, checks := evaluated(t, nil)
	r := Report{Spec: spec, Figures: f, Checks: checks, Pass: true}
	if err := WriteJSON(errWriter{}, r); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("WriteJSON to a failing writer: %v, want the write error", err)
	}
	r.Figures.Pairs[0].PortPutGBs = nan()
	r.Checks = Evaluate(spec, r.Figures)
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatalf("WriteJSON with a NaN figure: %v", err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("written JSON does not read back: %v", err)
	}
	if back.Figures.Pairs[0].PortPutGBs != 0 || !math.IsNaN(r.Figures.Pairs[0].PortPutGBs) {
		t.Errorf("NaN figure written as %v (and the caller's report changed: %v)", back.Figures.Pairs[0].PortPutGBs, r.Figures.Pairs[0].PortPutGBs)
	}
	if Passed(back.Checks) {
		t.Error("a NaN figure passed")
	}
}
