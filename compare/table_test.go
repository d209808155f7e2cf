package compare

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mscclpp-bench/mscclpp-bench/results"
)

func TestFormatChange(t *testing.T) {
	tests := []struct {
		change float64
		want   string
	}{
		{0.123, "+12.3%"},
		{-0.04, "-4.0%"},
		{0, "+0.0%"},
		{-1, "-100.0%"},
		{2.5, "+250.0%"},
		{9999.99, "+999999.0%"},
		{1e4, "+1e+06%"},
		{1e306, "+1e+308%"},
		{-1e5, "-1e+07%"},
		{math.NaN(), "n/a"},
	}
	for _, tt := range tests {
		if got := FormatChange(tt.change); got != tt.want {
			t.Errorf("FormatChange(%v) = %q, want %q", tt.change, got, tt.want)
		}
	}
}

func TestFormatValue(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{11.08495, "11.08"},
		{337.173623, "337.17"},
		{0.000662, "0.000662"},
		{0.0145678, "0.0146"},
		{0, "0.00"},
		{999999999.994, "999999999.99"},
		{1e9, "1e+09"},
		{1.23456e12, "1.235e+12"},
		{1e308, "1e+308"},
		{math.NaN(), "-"},
	}
	for _, tt := range tests {
		if got := formatValue(tt.v); got != tt.want {
			t.Errorf("formatValue(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	base := report(
		row("rsag", 4096, pl(10, 1), pl(10, 1)),
		row("rsag", 8<<20, pl(100, 200), nil),
		row("rsag", 16<<20, pl(100, 0), nil),
	)
	cur := report(
		row("rsag", 4096, pl(8, 1), pl(12.5, 1)),
		row("rsag", 8<<20, pl(100, 190), nil),
		row("rsag", 16<<20, pl(100, 5), nil),
		row("ll8", 4096, pl(5, 1), nil),
	)
	cur.Devices = devices(2, "NVIDIA H200", "elsewhere")
	cur.Collective = "all_gather_perf"
	cur.Rows[1].OutOfPlace.Wrong = 2
	opt := DefaultOptions()
	opt.Force = true
	res, err := Compare(base, cur, opt)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, res); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	wantLines := []string{
		"| all_gather_perf | rsag      | float | sum   | out-of-place |     4096 | time (us)    |    10.00 |    8.00 | -20.0% | improved  |",
		"| all_gather_perf | rsag      | float | sum   | in-place     |     4096 | time (us)    |    10.00 |   12.50 | +25.0% | regressed |",
		"| all_gather_perf | rsag      | float | sum   | out-of-place |  8388608 | busbw (GB/s) |   200.00 |  190.00 |  -5.0% | wrong     |",
		"| all_gather_perf | rsag      | float | sum   | out-of-place | 16777216 | busbw (GB/s) |     0.00 |    5.00 |    n/a | n/a       |",
		"| all_gather_perf | ll8       | float | sum   | out-of-place |     4096 | time (us)    |        - |    5.00 |    n/a | new       |",
		"warning: configurations differ: collective: baseline all_reduce_perf, current all_gather_perf",
		"note: all_gather_perf/rsag/float/sum/out-of-place/8388608: 2 wrong elements",
		"note: all_gather_perf/rsag/float/sum/out-of-place/16777216: baseline busbw is 0",
	}
	for _, w := range wantLines {
		if !strings.Contains(out, w+"\n") {
			t.Errorf("output lacks line\n%s\ngot:\n%s", w, out)
		}
	}
	if !strings.Contains(lines[1], "collective") || !strings.Contains(lines[1], "verdict") {
		t.Errorf("second line %q is not the header", lines[1])
	}
	want := "compared 5 rows: 1 improved, 0 ok, 1 regressed, 0 missing, 1 new, 1 wrong, 1 n/a"
	if last := lines[len(lines)-1]; last != want {
		t.Errorf("last line %q, want %q", last, want)
	}
	if strings.Contains(out, "pair") {
		t.Errorf("ping-pong table printed without ping-pong rows:\n%s", out)
	}
}

func TestWriteTablePingPong(t *testing.T) {
	r := &results.Report{
		Header:   results.Header{Collective: "pingpong"},
		PingPong: []results.PingPongRow{{Pair: "0-1", Channel: "port", Mode: "put", Size: 1 << 20, BwGBs: 100}},
	}
	res, err := Compare(r, r, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, res); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, w := range []string{
		"| pair | channel | mode | size (B) |  metric   | baseline | current | change | verdict |",
		"| 0-1  | port    | put  |  1048576 | bw (GB/s) |   100.00 |  100.00 |  +0.0% | ok      |",
		"compared 1 rows: 0 improved, 1 ok, 0 regressed, 0 missing, 0 new, 0 wrong\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q; got:\n%s", w, out)
		}
	}
	if strings.Contains(out, "collective") {
		t.Errorf("collective table printed without collective rows:\n%s", out)
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrors(t *testing.T) {
	res := &Result{}
	if err := WriteTable(failWriter{}, res); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("WriteTable: got %v, want the write error", err)
	}
	if err := WriteJUnit(failWriter{}, res, "s"); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("WriteJUnit: got %v, want the write error", err)
	}
	if err := WriteTable(&bytes.Buffer{}, nil); err == nil {
		t.Error("WriteTable(nil): no error")
	}
	if err := WriteJUnit(&bytes.Buffer{}, nil, "s"); err == nil {
		t.Error("WriteJUnit(nil): no error")
	}
}

// TestWriteTableHugeFigures: an absurd but finite figure (a busbw of 1e308) is judged,
// but prints in a few characters instead of widening the table to hundreds.
func TestWriteTableHugeFigures(t *testing.T) {
	base := report(row("rsag", 8<<20, pl(100, 200), nil))
	cur := report(row("rsag", 8<<20, pl(100, 1e308), nil))
	res, err := Compare(base, cur, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, res); err != nil {
		t.Fatal(err)
	}
	normal := 0
	{
		res, _ := Compare(base, base, DefaultOptions())
		var b bytes.Buffer
		if err := WriteTable(&b, res); err != nil {
			t.Fatal(err)
		}
		normal = len(strings.SplitN(b.String(), "\n", 2)[0])
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		if len(line) > normal+10 {
			t.Errorf("line of %d characters (a normal table has %d):\n%s", len(line), normal, line)
		}
	}
	if !strings.Contains(buf.String(), "1e+308") {
		t.Errorf("the figure is not shown as 1e+308:\n%s", buf.String())
	}
}

// TestWriteTableEscapesFileStrings: names read from the files (collective, algorithm,
// type, operator, ping-pong pair, channel and mode) reach the table, its warnings and notes
// with control characters and bytes that are not UTF-8 escaped: a baseline cannot send
// the terminal escape sequences or break the table's lines.
func TestWriteTableEscapesFileStrings(t *testing.T) {
	base := report(row("rs\x1b[2Jag", 4096, pl(10, 1), nil))
	cur := report(row("rs\x1b[2Jag", 4096, pl(10, 1), nil))
	base.Collective = "all\x1b]0;owned\x07_reduce_perf"
	cur.Collective = "all\nreduce\xff_perf"
	cur.Rows[0].Type, base.Rows[0].Type = "flo\rat", "flo\rat"
	cur.Rows[0].OutOfPlace.Wrong = 1
	opt := DefaultOptions()
	opt.Force = true
	res, err := Compare(base, cur, opt)
	if err != nil {
		t.Fatal(err)
	}
	ping := &results.Report{
		Header:   results.Header{Collective: "pingpong"},
		PingPong: []results.PingPongRow{{Pair: "0-1\x1b[A", Channel: "po\x00rt", Mode: "p\u202eut", Size: 1 << 20, BwGBs: 100}},
	}
	pres, err := Compare(ping, ping, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		res  *Result
		want []string
	}{
		{res, []string{`rs\x1b[2Jag`, `all\nreduce\xff_perf`, `all\x1b]0;owned\a_reduce_perf`, `flo\rat`}},
		{pres, []string{`0-1\x1b[A`, `po\x00rt`, `p\u202eut`}},
	} {
		var buf bytes.Buffer
		if err := WriteTable(&buf, tt.res); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for i, c := range out {
			if c == utf8.RuneError || c != '\n' && (unicode.IsControl(c) || unicode.Is(unicode.Bidi_Control, c)) {
				t.Fatalf("the table holds %q at byte %d:\n%q", c, i, out)
			}
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("the table lacks %s:\n%s", w, out)
			}
		}
	}
}
