package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/mscclpp-bench/mscclpp-bench/internal/clip"
)

// Axis titles.
const (
	SizeAxis = "Message size"
	BwAxis   = "Bus bandwidth (GB/s)"
	TimeAxis = "Time (µs)"
)

// Write renders the figure in its format to w.
func (f *Figure) Write(w io.Writer) error {
	var c vg.CanvasWriterTo
	switch f.Format {
	case SVG:
		c = vgsvg.New(f.Width, f.Height)
	case PNG:
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(f.DPI))}
	default:
		return fmt.Errorf("plot: unknown output format %v", f.Format)
	}
	if err := f.draw(draw.New(c)); err != nil {
		return err
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("plot: write %v: %w", f.Format, err)
	}
	return nil
}

// draw paints the title and the two aligned panels on dc.
func (f *Figure) draw(dc draw.Canvas) error {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	bw, tm := gplot.New(), gplot.New()
	for _, p := range []*gplot.Plot{bw, tm} {
		p.X.Label.Text = SizeAxis
		p.X.Scale = gplot.LogScale{}
		p.X.Tick.Marker = sizeTicks{}
		p.Add(plotter.NewGrid())
	}
	bw.Y.Label.Text = BwAxis
	tm.Y.Label.Text = TimeAxis
	tm.Y.Scale = gplot.LogScale{}
	tm.Y.Tick.Marker = timeTicks{}
	tm.Legend.Top, tm.Legend.Left = true, true
	tm.Legend.XOffs, tm.Legend.YOffs = vg.Points(6), -vg.Points(4)

	for i, s := range f.Series {
		bwXY := make(plotter.XYs, len(s.Points))
		tmXY := make(plotter.XYs, len(s.Points))
		for j, p := range s.Points {
			bwXY[j] = plotter.XY{X: float64(p.Size), Y: p.BusBw}
			tmXY[j] = plotter.XY{X: float64(p.Size), Y: p.TimeUs}
		}
		for _, panel := range []struct {
			p   *gplot.Plot
			xys plotter.XYs
		}{{bw, bwXY}, {tm, tmXY}} {
			line, points, err := plotter.NewLinePoints(panel.xys)
			if err != nil {
				return fmt.Errorf("plot: series %q: %w", s.Label, err)
			}
			line.Color = plotutil.Color(i)
			line.Dashes = plotutil.Dashes(i)
			points.Color = plotutil.Color(i)
			points.Shape = plotutil.Shape(i)
			panel.p.Add(line, points)
			if panel.p == tm {
				tm.Legend.Add(drawable(s.Label), line, points)
			}
		}
	}

	// Axis ranges: sizes and times snap outwards to tick values so that
	// both ends are labelled; bandwidth starts at zero.
	for _, p := range []*gplot.Plot{bw, tm} {
		p.X.Min, p.X.Max = pow2Range(p.X.Min, p.X.Max)
	}
	tm.Y.Min, tm.Y.Max = niceLogRange(tm.Y.Min, tm.Y.Max)
	bw.Y.Min = 0
	if !(bw.Y.Max > 0) {
		bw.Y.Max = 1
	}

	area := dc
	if f.Title != "" {
		title := drawable(f.Title)
		sty := bw.Title.TextStyle
		sty.Font.Size = vg.Points(14)
		pad := vg.Points(6)
		h := sty.Height(title)
		dc.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - pad}, title)
		area = draw.Crop(dc, 0, 0, 0, -(h + pad))
	}
	tiles := draw.Tiles{
		Rows: 1, Cols: 2,
		PadX:   vg.Points(18),
		PadTop: vg.Points(6), PadBottom: vg.Points(6),
		PadLeft: vg.Points(6), PadRight: vg.Points(12),
	}
	canvases := gplot.Align([][]*gplot.Plot{{bw, tm}}, tiles, area)
	bw.Draw(canvases[0][0])
	tm.Draw(canvases[0][1])
	return nil
}

// drawable is s as it may be drawn: titles and labels come from flags and from results
// files, so anything may be in them, and control characters, bytes that are not UTF-8 and
// the non-characters U+FFFE and U+FFFF may not be in an SVG (XML) document. They are drawn
// as Go escapes (\x1b, \n, \xff; clip.Printable).
func drawable(s string) string { return clip.Printable(s) }

// pow2Range widens [lo, hi] to powers of two around it; an empty range
// (no data) becomes [1, 1K] and a single size gets one power on each side.
func pow2Range(lo, hi float64) (float64, float64) {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return 1, 1024
	}
	lo = math.Exp2(math.Floor(math.Log2(lo)))
	hi = math.Exp2(math.Ceil(math.Log2(hi)))
	if lo == hi {
		lo, hi = lo/2, hi*2
	}
	return lo, hi
}

// niceLogRange widens [lo, hi] to the 1-2-5 values around it; an empty
// range becomes [1, 10] and a single value gets one step on each side.
func niceLogRange(lo, hi float64) (float64, float64) {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return 1, 10
	}
	nlo, nhi := niceBelow(lo), niceAbove(hi)
	if nlo == nhi {
		nlo, nhi = niceBelow(nlo*0.99), niceAbove(nhi*1.01)
	}
	return nlo, nhi
}

// niceSteps are the mantissas of the 1-2-5 sequence.
var niceSteps = []float64{1, 2, 5, 10}

// niceBelow returns the largest 1-2-5 value at most v (v > 0).
func niceBelow(v float64) float64 {
	dec := math.Pow(10, math.Floor(math.Log10(v)))
	best := dec
	for _, m := range niceSteps {
		if m*dec <= v*(1+1e-12) {
			best = m * dec
		}
	}
	return best
}

// niceAbove returns the smallest 1-2-5 value at least v (v > 0).
func niceAbove(v float64) float64 {
	dec := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range niceSteps {
		if m*dec >= v*(1-1e-12) {
			return m * dec
		}
	}
	return 10 * dec
}

// sizeTicks marks every power of two on a byte-size axis and labels one in
// every 1, 2, 5 or 10 of them, at most maxSizeLabels, as 8B, 1K, 1M, 1G.
type sizeTicks struct{}

// maxSizeLabels is the most labels sizeTicks writes on one axis.
const maxSizeLabels = 8

// Ticks implements gplot.Ticker.
func (sizeTicks) Ticks(min, max float64) []gplot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return nil
	}
	lo := int(math.Ceil(math.Log2(min) - 1e-9))
	hi := int(math.Floor(math.Log2(max) + 1e-9))
	every := 10
	for _, k := range []int{1, 2, 5} {
		if countMultiples(lo, hi, k) <= maxSizeLabels {
			every = k
			break
		}
	}
	var ticks []gplot.Tick
	for e := lo; e <= hi; e++ {
		t := gplot.Tick{Value: math.Exp2(float64(e))}
		if e%every == 0 && e >= 0 && e < 63 {
			t.Label = SizeLabel(int64(1) << e)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// countMultiples counts the multiples of k in [lo, hi].
func countMultiples(lo, hi, k int) int {
	n := 0
	for e := lo; e <= hi; e++ {
		if e%k == 0 {
			n++
		}
	}
	return n
}

// SizeLabel writes a byte count the short way, in binary units: 8B, 512B,
// 1K, 64K, 1M, 2G, 1T. A count is written in the largest unit that divides
// it: 1536 is 1536B and 3145728 is 3M.
func SizeLabel(n int64) string {
	units := []string{"B", "K", "M", "G", "T", "P", "E"}
	u := 0
	for n != 0 && n%1024 == 0 && u < len(units)-1 {
		n /= 1024
		u++
	}
	return strconv.FormatInt(n, 10) + units[u]
}

// timeTicks marks a logarithmic time axis at 1..9 times each power of ten.
// Powers of ten are labelled; when fewer than three lie in the range, the
// 2 and 5 multiples are labelled too.
type timeTicks struct{}

// Ticks implements gplot.Ticker.
func (timeTicks) Ticks(min, max float64) []gplot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return nil
	}
	in := func(v float64) bool { return v >= min*(1-1e-9) && v <= max*(1+1e-9) }
	lo := int(math.Floor(math.Log10(min)))
	hi := int(math.Ceil(math.Log10(max)))
	decades := 0
	for d := lo; d <= hi; d++ {
		if in(math.Pow(10, float64(d))) {
			decades++
		}
	}
	var ticks []gplot.Tick
	for d := lo; d <= hi; d++ {
		dec := math.Pow(10, float64(d))
		for m := 1; m <= 9; m++ {
			v := float64(m) * dec
			if !in(v) {
				continue
			}
			t := gplot.Tick{Value: v}
			if m == 1 || (decades < 3 && (m == 2 || m == 5)) {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
