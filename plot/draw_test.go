package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// svgTexts decodes an SVG document token by token, failing on malformed
// XML, and returns the text content of its <text> elements.
func svgTexts(t *testing.T, doc []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var texts []string
	inText, root := false, ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			inText = tok.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return texts
}

func TestWriteSVG(t *testing.T) {
	multi := report("all_reduce_perf",
		row(1024, "float", "sum", "ring", 5, 1),
		row(1024, "float", "sum", "tree", 4, 2),
		row(1<<20, "float", "sum", "ring", 60, 30),
		row(1<<20, "float", "sum", "tree", 70, 40),
	)
	tests := []struct {
		name   string
		inputs []Input
		opt    Options
		want   []string
	}{
		{
			name: "real and crafted",
			inputs: []Input{
				{Name: realFile, Report: readReal(t)},
				{Name: "ours.json", Report: multi},
			},
			want: []string{"h200x2-nccl2.28.3-mpi_all_reduce", "ours (best of 2 algorithms)",
				"all_reduce: float sum, out-of-place", "32B", "1K", "1M", "1G"},
		},
		{
			name:   "by algorithm, escaped label and title",
			inputs: []Input{{Name: "ours.json", Label: `a<&>"b'`, Report: multi}},
			opt:    Options{ByAlgorithm: true, Title: "x & y", Width: 6 * vg.Inch, Height: 3 * vg.Inch},
			want:   []string{`a<&>"b': ring`, `a<&>"b': tree`, "x & y", "1K", "1M"},
		},
		{
			// Every string drawn comes from a flag or a file: control characters, escape
			// sequences and bytes that are not UTF-8 are drawn escaped, so the SVG stays
			// XML (Go's decoder refuses them raw).
			name: "control characters in the title, labels and algorithm names",
			inputs: []Input{{Name: "ours.json", Label: "lab\x00el\x1b[31m", Report: report("all_reduce_perf",
				row(1024, "float", "sum", "ri\x07ng", 5, 1), row(1024, "float", "sum", "tr\xffee\u0085", 4, 2))}},
			opt:  Options{ByAlgorithm: true, Title: "t\x1b]0;owned\x07itle\nnext\tline\uffff"},
			want: []string{`lab\x00el\x1b[31m: ri\ang`, `lab\x00el\x1b[31m: tr\xffee\u0085`, `t\x1b]0;owned\aitle\nnext\tline\uffff`},
		},
		{
			name:   "a default title from a file's collective",
			inputs: []Input{{Name: "c.json", Report: report("all\x1b[2Jreduce_perf", row(1024, "float", "sum", "", 5, 1))}},
			want:   []string{`all\x1b[2Jreduce: float sum, out-of-place`},
		},
		{
			name:   "single size",
			inputs: []Input{{Name: "one.json", Report: report("", row(32<<20, "float", "sum", "", 300, 100))}},
			want:   []string{"one", "16M", "32M", "64M", "200", "500"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fig, err := New(tc.inputs, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := fig.Write(&buf); err != nil {
				t.Fatal(err)
			}
			texts := svgTexts(t, buf.Bytes())
			for _, w := range append(tc.want, SizeAxis, BwAxis, TimeAxis) {
				if !slices.Contains(texts, w) {
					t.Errorf("no text %q in SVG; texts: %q", w, texts)
				}
			}
		})
	}
}

func TestWritePNG(t *testing.T) {
	r := readReal(t)
	tests := []struct {
		name          string
		opt           Options
		width, height int
	}{
		{"default", Options{Format: PNG}, 960, 384},
		{"sized", Options{Format: PNG, Width: 6 * vg.Inch, Height: 3 * vg.Inch, DPI: 50}, 300, 150},
		{"in-place hi-res", Options{Format: PNG, Placement: InPlace, Width: 8 * vg.Inch, Height: 8 * vg.Inch, DPI: 200}, 1600, 1600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fig, err := New([]Input{{Name: realFile, Report: r}}, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := fig.Write(&buf); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatalf("PNG does not decode: %v", err)
			}
			if b := img.Bounds(); b.Dx() != tc.width || b.Dy() != tc.height {
				t.Errorf("PNG is %dx%d, want %dx%d", b.Dx(), b.Dy(), tc.width, tc.height)
			}
		})
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteError(t *testing.T) {
	for _, f := range []Format{SVG, PNG} {
		fig, err := New([]Input{{Name: "a.json", Report: report("", row(8, "float", "sum", "", 1, 1))}}, Options{Format: f})
		if err != nil {
			t.Fatal(err)
		}
		if err := fig.Write(failWriter{}); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%v: error %v, want the writer's", f, err)
		}
	}
}

func TestSizeLabel(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0B"},
		{8, "8B"},
		{512, "512B"},
		{1024, "1K"},
		{1536, "1536B"},
		{64 << 10, "64K"},
		{3 << 20, "3M"},
		{2 << 30, "2G"},
		{1 << 40, "1T"},
	}
	for _, tc := range tests {
		if got := SizeLabel(tc.in); got != tc.want {
			t.Errorf("SizeLabel(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTicks(t *testing.T) {
	tests := []struct {
		name     string
		min, max float64
		time     bool
		marks    int
		want     []string
	}{
		{name: "sizes 8B..2G", min: 8, max: 2 << 30, marks: 29, want: []string{"32B", "1K", "32K", "1M", "32M", "1G"}},
		{name: "sizes 1K..64K", min: 1024, max: 64 << 10, marks: 7, want: []string{"1K", "2K", "4K", "8K", "16K", "32K", "64K"}},
		{name: "sizes 16M..64M", min: 16 << 20, max: 64 << 20, marks: 3, want: []string{"16M", "32M", "64M"}},
		{name: "sizes 1..1T", min: 1, max: 1 << 40, marks: 41, want: []string{"1B", "1K", "1M", "1G", "1T"}},
		{name: "sizes invalid", min: 0, max: 8, marks: 0},
		{name: "time 5..10000", time: true, min: 5, max: 10000, marks: 33, want: []string{"10", "100", "1000", "10000"}},
		{name: "time 10..20", time: true, min: 10, max: 20, marks: 2, want: []string{"10", "20"}},
		{name: "time 0.5..20", time: true, min: 0.5, max: 20, marks: 16, want: []string{"0.5", "1", "2", "5", "10", "20"}},
		{name: "time invalid", time: true, min: -1, max: 8, marks: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			var marks int
			ticks := sizeTicks{}.Ticks
			if tc.time {
				ticks = timeTicks{}.Ticks
			}
			for _, tk := range ticks(tc.min, tc.max) {
				marks++
				if tk.Value < tc.min || tk.Value > tc.max {
					t.Errorf("tick %g outside [%g, %g]", tk.Value, tc.min, tc.max)
				}
				if tk.Label != "" {
					got = append(got, tk.Label)
				}
			}
			if marks != tc.marks || !slices.Equal(got, tc.want) {
				t.Errorf("%d marks labelled %q, want %d labelled %q", marks, got, tc.marks, tc.want)
			}
			if len(got) > maxSizeLabels && !tc.time {
				t.Errorf("%d size labels, at most %d wanted", len(got), maxSizeLabels)
			}
		})
	}
}

func TestRanges(t *testing.T) {
	tests := []struct {
		name           string
		f              func(lo, hi float64) (float64, float64)
		lo, hi         float64
		wantLo, wantHi float64
	}{
		{"pow2 exact", pow2Range, 8, 2 << 30, 8, 2 << 30},
		{"pow2 between", pow2Range, 1000, 3000, 512, 4096},
		{"pow2 single", pow2Range, 1024, 1024, 512, 2048},
		{"pow2 empty", pow2Range, math.Inf(1), math.Inf(-1), 1, 1024},
		{"log 1-2-5", niceLogRange, 9.3, 6300, 5, 10000},
		{"log exact", niceLogRange, 2, 50, 2, 50},
		{"log single", niceLogRange, 20, 20, 10, 50},
		{"log between", niceLogRange, 12, 18, 10, 20},
		{"log empty", niceLogRange, math.Inf(1), math.Inf(-1), 1, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi := tc.f(tc.lo, tc.hi)
			if math.Abs(lo-tc.wantLo) > 1e-9*tc.wantLo || math.Abs(hi-tc.wantHi) > 1e-9*tc.wantHi {
				t.Errorf("got [%g, %g], want [%g, %g]", lo, hi, tc.wantLo, tc.wantHi)
			}
		})
	}
}
