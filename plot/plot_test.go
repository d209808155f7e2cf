package plot

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// realFile is an nccl-tests all_reduce run on 2xH200.
const realFile = "../results/testdata/h200x2-nccl2.28.3-mpi_all_reduce.json"

func readReal(t *testing.T) *results.Report {
	t.Helper()
	fh, err := os.Open(realFile)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	r, err := results.ReadJSON(fh)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// row builds a row whose out-of-place time is us and bus bandwidth bw, and
// whose in-place figures are doubled.
func row(size int64, typ, op, alg string, us, bw float64) results.Row {
	return results.Row{
		Size: size, Type: typ, Op: op, Algorithm: alg,
		OutOfPlace: &results.Placement{TimeUs: us, BusBw: bw, Wrong: 0},
		InPlace:    &results.Placement{TimeUs: 2 * us, BusBw: 2 * bw, Wrong: 0},
	}
}

func report(coll string, rows ...results.Row) *results.Report {
	return &results.Report{Header: results.Header{Collective: coll}, Rows: rows}
}

func TestNewSeries(t *testing.T) {
	multi := report("all_reduce_perf",
		row(1024, "float", "sum", "ring", 5, 1),
		row(1024, "float", "sum", "tree", 4, 2),
		row(2048, "float", "sum", "ring", 6, 3),
		row(2048, "float", "sum", "tree", 7, 4),
	)
	types := report("all_reduce_perf",
		row(64, "half", "sum", "", 3, 1),
		row(64, "half", "max", "", 4, 2),
		row(64, "float", "sum", "", 5, 3),
		row(64, "float", "max", "", 6, 4),
	)
	inNil := report("all_gather_perf",
		row(8, "float", "none", "", 1, 1),
		row(16, "float", "none", "", 2, 2),
	)
	inNil.Rows[1].InPlace = nil
	bad := report("",
		row(8, "float", "sum", "", 0, 1),             // zero time: not on a log axis
		row(16, "float", "sum", "", math.NaN(), 1),   // NaN time
		row(32, "float", "sum", "", 3, math.Inf(1)),  // infinite bandwidth
		row(0, "float", "sum", "", 3, 1),             // no size
		row(64, "float", "sum", "", 3, math.NaN()),   // NaN bandwidth
		row(128, "float", "sum", "", 4, 0),           // zero bandwidth is fine
		row(256, "float", "sum", "", math.Inf(1), 1), // infinite time
	)

	tests := []struct {
		name   string
		inputs []Input
		opt    Options
		want   []Series
		title  string
	}{
		{
			name: "unsorted single algorithm, default label",
			inputs: []Input{{Name: "dir/nccl.json", Report: report("all_reduce_perf",
				row(2048, "float", "sum", "", 9, 8),
				row(1024, "float", "sum", "", 7, 6),
			)}},
			want: []Series{{Label: "nccl", Points: []Point{
				{Size: 1024, TimeUs: 7, BusBw: 6},
				{Size: 2048, TimeUs: 9, BusBw: 8},
			}}},
			title: "all_reduce: float sum, out-of-place",
		},
		{
			name:   "best per size",
			inputs: []Input{{Name: "ours.json", Report: multi}},
			want: []Series{{Label: "ours (best of 2 algorithms)", Points: []Point{
				{Size: 1024, TimeUs: 4, BusBw: 2, Algorithm: "tree"},
				{Size: 2048, TimeUs: 6, BusBw: 3, Algorithm: "ring"},
			}}},
			title: "all_reduce: float sum, out-of-place",
		},
		{
			name:   "by algorithm with explicit label",
			inputs: []Input{{Name: "ours.json", Label: "mine", Report: multi}},
			opt:    Options{ByAlgorithm: true},
			want: []Series{
				{Label: "mine: ring", Points: []Point{
					{Size: 1024, TimeUs: 5, BusBw: 1, Algorithm: "ring"},
					{Size: 2048, TimeUs: 6, BusBw: 3, Algorithm: "ring"},
				}},
				{Label: "mine: tree", Points: []Point{
					{Size: 1024, TimeUs: 4, BusBw: 2, Algorithm: "tree"},
					{Size: 2048, TimeUs: 7, BusBw: 4, Algorithm: "tree"},
				}},
			},
			title: "all_reduce: float sum, out-of-place",
		},
		{
			name:   "in-place",
			inputs: []Input{{Name: "ours.json", Report: multi}},
			opt:    Options{Placement: InPlace, Title: "T"},
			want: []Series{{Label: "ours (best of 2 algorithms)", Points: []Point{
				{Size: 1024, TimeUs: 8, BusBw: 4, Algorithm: "tree"},
				{Size: 2048, TimeUs: 12, BusBw: 6, Algorithm: "ring"},
			}}},
			title: "T",
		},
		{
			name:   "in-place skips rows without it",
			inputs: []Input{{Name: "ag.json", Report: inNil}},
			opt:    Options{Placement: InPlace},
			want:   []Series{{Label: "ag", Points: []Point{{Size: 8, TimeUs: 2, BusBw: 2}}}},
			title:  "all_gather: float, in-place",
		},
		{
			name:   "default type and op are the first present",
			inputs: []Input{{Name: "t.json", Report: types}},
			want:   []Series{{Label: "t", Points: []Point{{Size: 64, TimeUs: 3, BusBw: 1}}}},
			title:  "all_reduce: half sum, out-of-place",
		},
		{
			name:   "datatype filter, first op of that type",
			inputs: []Input{{Name: "t.json", Report: types}},
			opt:    Options{Datatype: "FLOAT"},
			want:   []Series{{Label: "t", Points: []Point{{Size: 64, TimeUs: 5, BusBw: 3}}}},
			title:  "all_reduce: float sum, out-of-place",
		},
		{
			name:   "op filter",
			inputs: []Input{{Name: "t.json", Report: types}},
			opt:    Options{Op: "max"},
			want:   []Series{{Label: "t", Points: []Point{{Size: 64, TimeUs: 4, BusBw: 2}}}},
			title:  "all_reduce: half max, out-of-place",
		},
		{
			name:   "unplottable values dropped",
			inputs: []Input{{Name: "bad.json", Report: bad}},
			want:   []Series{{Label: "bad", Points: []Point{{Size: 128, TimeUs: 4, BusBw: 0}}}},
			title:  "float sum, out-of-place",
		},
		{
			name: "several files, title keeps what they share",
			inputs: []Input{
				{Name: "a.json", Report: inNil},
				{Name: "b.JSON", Report: types},
			},
			want: []Series{
				{Label: "a", Points: []Point{{Size: 8, TimeUs: 1, BusBw: 1}, {Size: 16, TimeUs: 2, BusBw: 2}}},
				{Label: "b", Points: []Point{{Size: 64, TimeUs: 3, BusBw: 1}}},
			},
			title: "all_gather, all_reduce: out-of-place",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fig, err := New(tc.inputs, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fig.Series, tc.want) {
				t.Errorf("series\n got %+v\nwant %+v", fig.Series, tc.want)
			}
			if fig.Title != tc.title {
				t.Errorf("title %q, want %q", fig.Title, tc.title)
			}
		})
	}
}

func TestNewRealFile(t *testing.T) {
	fig, err := New([]Input{{Name: realFile, Report: readReal(t)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Series) != 1 || fig.Series[0].Label != "h200x2-nccl2.28.3-mpi_all_reduce" {
		t.Fatalf("series %+v", fig.Series)
	}
	pts := fig.Series[0].Points
	if len(pts) != 29 || pts[0].Size != 8 || pts[len(pts)-1].Size != 2<<30 {
		t.Errorf("%d points from %d to %d bytes, want 29 from 8 to 2G", len(pts), pts[0].Size, pts[len(pts)-1].Size)
	}
	if fig.Title != "all_reduce: float sum, out-of-place" {
		t.Errorf("title %q", fig.Title)
	}
	if fig.Format != SVG || fig.Width != DefaultWidth || fig.Height != DefaultHeight || fig.DPI != DefaultDPI {
		t.Errorf("defaults: %v %v %v %v", fig.Format, fig.Width, fig.Height, fig.DPI)
	}
}

func TestNewErrors(t *testing.T) {
	good := []Input{{Name: "good.json", Report: report("", row(8, "float", "sum", "", 1, 1))}}
	tests := []struct {
		name   string
		inputs []Input
		opt    Options
		want   []string // substrings of the error
	}{
		{"no inputs", nil, Options{}, []string{"no results files"}},
		{"nil report", []Input{{Name: "x.json"}}, Options{}, []string{"x.json", "no results"}},
		{"no rows", []Input{{Name: "empty.json", Report: report("")}}, Options{}, []string{"empty.json", "no results"}},
		{
			"ping-pong only",
			[]Input{{Name: "pp.json", Report: &results.Report{PingPong: []results.PingPongRow{{Pair: "0-1", Channel: "memory", Mode: "put", Size: 8, TimeUs: 1, BwGBs: 1}}}}},
			Options{}, []string{"pp.json", "ping-pong"},
		},
		{"datatype absent", good, Options{Datatype: "half"}, []string{"good.json", `"half"`, "present: float/sum"}},
		{"op absent", good, Options{Op: "max"}, []string{"good.json", `"max"`}},
		{
			"no in-place",
			[]Input{{Name: "oop.json", Report: report("", results.Row{Size: 8, Type: "float", Op: "sum", OutOfPlace: &results.Placement{TimeUs: 1}})}},
			Options{Placement: InPlace}, []string{"oop.json", "in-place"},
		},
		{
			"second file bad",
			append(good[:1:1], Input{Name: "b.json", Report: report("", row(8, "float", "sum", "", 0, 1))}),
			Options{}, []string{"b.json", "no plottable"},
		},
		{"narrow", good, Options{Width: vg.Inch}, []string{"width"}},
		{"tall", good, Options{Height: 60 * vg.Inch}, []string{"height"}},
		{"dpi", good, Options{DPI: 5000}, []string{"dpi"}},
		{"negative dpi", good, Options{DPI: -1}, []string{"dpi -1"}},
		{"NaN width", good, Options{Width: vg.Length(math.NaN())}, []string{"width NaN"}},
		{"NaN height png", good, Options{Format: PNG, Height: vg.Length(math.NaN()), DPI: 600}, []string{"height NaN"}},
		{"infinite width", good, Options{Width: vg.Length(math.Inf(1))}, []string{"width +Inf"}},
		{"negative width", good, Options{Width: -vg.Inch}, []string{"width -1in"}},
		{"too many pixels", good, Options{Format: PNG, Width: 40 * vg.Inch, DPI: 600}, []string{"pixels"}},
		{"format", good, Options{Format: 7}, []string{"format"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.inputs, tc.opt)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestParsePlacement(t *testing.T) {
	tests := []struct {
		in   string
		want Placement
		ok   bool
	}{
		{"out", OutOfPlace, true},
		{"out-of-place", OutOfPlace, true},
		{"in", InPlace, true},
		{" In-Place ", InPlace, true},
		{"", 0, false},
		{"both", 0, false},
	}
	for _, tc := range tests {
		got, err := ParsePlacement(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParsePlacement(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestFormatFromPath(t *testing.T) {
	tests := []struct {
		in   string
		want Format
		ok   bool
	}{
		{"a.svg", SVG, true},
		{"dir/A.SVG", SVG, true},
		{"a.png", PNG, true},
		{"a.pdf", 0, false},
		{"svg", 0, false},
		{"", 0, false},
	}
	for _, tc := range tests {
		got, err := FormatFromPath(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("FormatFromPath(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestDefaultLabel(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ours.json", "ours"},
		{"/a/b/run-1.JSON", "run-1"},
		{"plain", "plain"},
		{"x.txt", "x.txt"},
		{".json", ".json"},
	}
	for _, tc := range tests {
		if got := DefaultLabel(tc.in); got != tc.want {
			t.Errorf("DefaultLabel(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
