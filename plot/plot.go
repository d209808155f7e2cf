// Package plot draws results files as one picture of two panels side by
// side: bus bandwidth (GB/s, linear) and time per operation (µs, log scale)
// against message size (log scale, base 2). Each results file becomes one
// line with points, or one line per algorithm on request.
//
// Use it in two steps: New checks the inputs and options and extracts the
// series (its errors are the caller's bad input); Figure.Write renders the
// picture as SVG or PNG (its errors come from the writer).
package plot

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// Placement selects which measurement of a row is plotted.
type Placement int

// Placements.
const (
	OutOfPlace Placement = iota // the row's out-of-place measurement (default)
	InPlace                     // the row's in-place measurement
)

// String returns "out-of-place" or "in-place".
func (p Placement) String() string {
	if p == InPlace {
		return "in-place"
	}
	return "out-of-place"
}

// ParsePlacement reads "out" or "out-of-place", "in" or "in-place".
func ParsePlacement(s string) (Placement, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "out", "out-of-place", "outofplace":
		return OutOfPlace, nil
	case "in", "in-place", "inplace":
		return InPlace, nil
	}
	return 0, fmt.Errorf("placement %q: want out or in", s)
}

// Format is the picture's file format.
type Format int

// Formats.
const (
	SVG Format = iota + 1 // scalable vector graphics
	PNG                   // portable network graphics
)

// String returns "SVG" or "PNG".
func (f Format) String() string {
	switch f {
	case SVG:
		return "SVG"
	case PNG:
		return "PNG"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// FormatFromPath picks the format from the extension of path: .svg or .png,
// in any case.
func FormatFromPath(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		return SVG, nil
	case ".png":
		return PNG, nil
	}
	return 0, fmt.Errorf("%q: want a file name ending in .svg or .png", path)
}

// DefaultLabel is the legend label of a file: its base name without a .json
// extension.
func DefaultLabel(path string) string {
	base := filepath.Base(path)
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".json") && len(base) > len(ext) {
		base = base[:len(base)-len(ext)]
	}
	return base
}

// Input is one results file to plot.
type Input struct {
	Name   string          // file name, used in errors and for the default label
	Label  string          // legend label; "" means DefaultLabel(Name)
	Report *results.Report // the file's contents
}

// Default picture settings.
const (
	DefaultWidth  = 10 * vg.Inch
	DefaultHeight = 4 * vg.Inch
	DefaultDPI    = 96
)

// Limits on the picture size, so that a typo cannot ask for gigabytes.
const (
	minSide   = 2 * vg.Inch
	maxSide   = 50 * vg.Inch
	minDPI    = 24
	maxDPI    = 1200
	maxPixels = 10000 // per side of a PNG
)

// Options choose what is plotted and how. The zero value plots the
// out-of-place measurement of the first datatype and op of each file, best
// algorithm per size, as an SVG of DefaultWidth × DefaultHeight.
type Options struct {
	Format    Format    // SVG (default when zero) or PNG
	Placement Placement // which measurement of each row
	// Datatype keeps only rows of this type (case-insensitive); "" keeps
	// the first type present in each file.
	Datatype string
	// Op keeps only rows of this reduction (case-insensitive); "" keeps the
	// first op present among the kept type's rows of each file.
	Op string
	// ByAlgorithm draws one line per algorithm instead of the best
	// (lowest time) algorithm per size.
	ByAlgorithm bool
	// Title is drawn above the panels; "" builds one from the collectives,
	// type, op and placement.
	Title string
	// Width and Height are the picture size; zero means the default.
	Width, Height vg.Length
	// DPI is the PNG resolution in dots per inch; zero means DefaultDPI.
	// SVG output ignores it.
	DPI int
}

// Point is one plotted measurement.
type Point struct {
	Size      int64   // message size, bytes
	TimeUs    float64 // time per operation, µs
	BusBw     float64 // bus bandwidth, GB/s
	Algorithm string  // algorithm measured ("" in nccl-tests files)
}

// Series is one line of the picture, drawn in both panels.
type Series struct {
	Label  string  // legend label
	Points []Point // ascending sizes, one point per size
}

// Figure is a picture ready to be written. New fills it in and checks its
// size; Write does not check again.
type Figure struct {
	Title         string    // drawn above the panels; "" draws none
	Series        []Series  // the lines, in legend order
	Format        Format    // SVG or PNG
	Width, Height vg.Length // picture size
	DPI           int       // PNG resolution, dots per inch
}

// New extracts the series of every input and checks the options. Its errors
// describe bad input: an unusable option, or a file (named in the message)
// with nothing to plot.
func New(inputs []Input, opt Options) (*Figure, error) {
	if len(inputs) == 0 {
		return nil, errors.New("no results files to plot")
	}
	f := &Figure{Title: opt.Title, Format: opt.Format, Width: opt.Width, Height: opt.Height, DPI: opt.DPI}
	if f.Format == 0 {
		f.Format = SVG
	}
	if f.Width == 0 {
		f.Width = DefaultWidth
	}
	if f.Height == 0 {
		f.Height = DefaultHeight
	}
	if f.DPI == 0 {
		f.DPI = DefaultDPI
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	var sels []selection
	for _, in := range inputs {
		series, sel, err := extract(in, opt)
		if err != nil {
			return nil, err
		}
		f.Series = append(f.Series, series...)
		sels = append(sels, sel)
	}
	if f.Title == "" {
		f.Title = defaultTitle(inputs, sels, opt.Placement)
	}
	return f, nil
}

// check validates the format, size and resolution.
func (f *Figure) check() error {
	if f.Format != SVG && f.Format != PNG {
		return fmt.Errorf("unknown output format %v", f.Format)
	}
	if f.DPI < minDPI || f.DPI > maxDPI {
		return fmt.Errorf("dpi %d: want %d to %d", f.DPI, minDPI, maxDPI)
	}
	for _, side := range []struct {
		name string
		v    vg.Length
	}{{"width", f.Width}, {"height", f.Height}} {
		// Written so that NaN, which compares false with everything, fails too.
		if !(side.v >= minSide && side.v <= maxSide) {
			return fmt.Errorf("%s %.3gin: want %gin to %gin", side.name, side.v/vg.Inch, minSide/vg.Inch, maxSide/vg.Inch)
		}
		if f.Format == PNG && side.v/vg.Inch*vg.Length(f.DPI) > maxPixels {
			return fmt.Errorf("%s %.3gin at %d dpi is over %d pixels", side.name, side.v/vg.Inch, f.DPI, maxPixels)
		}
	}
	return nil
}

// selection is the datatype and op plotted from one file.
type selection struct{ typ, op string }

// extract turns one input into its series.
func extract(in Input, opt Options) ([]Series, selection, error) {
	name, r := in.Name, in.Report
	label := in.Label
	if label == "" {
		label = DefaultLabel(name)
	}
	if r == nil || len(r.Rows) == 0 {
		if r != nil && len(r.PingPong) > 0 {
			return nil, selection{}, fmt.Errorf("%s: ping-pong results have no collective rows to plot (plot draws collectives only)", name)
		}
		return nil, selection{}, fmt.Errorf("%s: no results to plot", name)
	}

	sel := selection{typ: opt.Datatype, op: opt.Op}
	if sel.typ == "" {
		sel.typ = r.Rows[0].Type
	}
	var rows []results.Row
	for _, row := range r.Rows {
		if !strings.EqualFold(row.Type, sel.typ) {
			continue
		}
		if sel.op == "" {
			sel.op = row.Op
		}
		if strings.EqualFold(row.Op, sel.op) {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		want := fmt.Sprintf("datatype %q", sel.typ)
		if sel.op != "" {
			want += fmt.Sprintf(" and op %q", sel.op)
		}
		return nil, sel, fmt.Errorf("%s: no rows of %s (present: %s)", name, want, present(r.Rows))
	}
	sel = selection{typ: rows[0].Type, op: rows[0].Op} // the file's spelling

	// Keep the wanted placement's plottable measurements, grouped by
	// algorithm in order of first appearance.
	var algs []string
	byAlg := map[string][]Point{}
	for _, row := range rows {
		pl := row.OutOfPlace
		if opt.Placement == InPlace {
			pl = row.InPlace
		}
		if pl == nil || row.Size <= 0 || !plottable(pl) {
			continue
		}
		if _, ok := byAlg[row.Algorithm]; !ok {
			algs = append(algs, row.Algorithm)
		}
		byAlg[row.Algorithm] = append(byAlg[row.Algorithm], Point{Size: row.Size, TimeUs: pl.TimeUs, BusBw: pl.BusBw, Algorithm: row.Algorithm})
	}
	if len(algs) == 0 {
		return nil, sel, fmt.Errorf("%s: no plottable %s measurements of %s %s", name, opt.Placement, sel.typ, sel.op)
	}

	if opt.ByAlgorithm {
		var out []Series
		for _, alg := range algs {
			l := label
			if alg != "" {
				l += ": " + alg
			}
			out = append(out, Series{Label: l, Points: bestPerSize(byAlg[alg])})
		}
		return out, sel, nil
	}
	var all []Point
	for _, alg := range algs {
		all = append(all, byAlg[alg]...)
	}
	if len(algs) > 1 {
		label = fmt.Sprintf("%s (best of %d algorithms)", label, len(algs))
	}
	return []Series{{Label: label, Points: bestPerSize(all)}}, sel, nil
}

// plottable reports whether a measurement can be drawn: a positive finite
// time (the time axis is logarithmic) and a finite, non-negative bandwidth.
func plottable(p *results.Placement) bool {
	return p.TimeUs > 0 && !math.IsInf(p.TimeUs, 0) &&
		p.BusBw >= 0 && !math.IsInf(p.BusBw, 0) // NaN fails both comparisons
}

// bestPerSize keeps the lowest-time point of each size, sorted by size. On
// a tie the first point wins.
func bestPerSize(points []Point) []Point {
	best := map[int64]Point{}
	for _, p := range points {
		if b, ok := best[p.Size]; !ok || p.TimeUs < b.TimeUs {
			best[p.Size] = p
		}
	}
	out := make([]Point, 0, len(best))
	for _, p := range best {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Point) int { return cmp.Compare(a.Size, b.Size) })
	return out
}

// present lists the type/op pairs of rows, in order of first appearance.
func present(rows []results.Row) string {
	var pairs []string
	for _, row := range rows {
		p := row.Type + "/" + row.Op
		if !slices.Contains(pairs, p) {
			pairs = append(pairs, p)
		}
	}
	return strings.Join(pairs, ", ")
}

// defaultTitle names the collectives, then the type and op when every file
// agrees on them, then the placement, e.g. "all_reduce: float sum,
// out-of-place".
func defaultTitle(inputs []Input, sels []selection, pl Placement) string {
	var colls []string
	for _, in := range inputs {
		c := strings.TrimSuffix(in.Report.Collective, "_perf")
		if c != "" && !slices.Contains(colls, c) {
			colls = append(colls, c)
		}
	}
	same := func(get func(selection) string) string {
		v := get(sels[0])
		for _, s := range sels[1:] {
			if !strings.EqualFold(get(s), v) {
				return ""
			}
		}
		return v
	}
	var detail []string
	for _, v := range []string{same(func(s selection) string { return s.typ }), same(func(s selection) string { return s.op })} {
		if v != "" && v != "none" {
			detail = append(detail, v)
		}
	}
	title := pl.String()
	if len(detail) > 0 {
		title = strings.Join(detail, " ") + ", " + title
	}
	if len(colls) > 0 {
		title = strings.Join(colls, ", ") + ": " + title
	}
	return title
}
