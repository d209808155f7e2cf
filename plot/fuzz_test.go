package plot

import (
	"math"
	"testing"

	"gonum.org/v1/plot/vg"
)

// FuzzFigureSize: any width, height and resolution is refused or gives a picture inside
// the limits (a NaN width once reached the PNG canvas and panicked there).
func FuzzFigureSize(f *testing.F) {
	f.Add(math.NaN(), 288.0, 96, true)
	f.Add(720.0, math.Inf(1), 1200, false)
	f.Add(-1.0, 288.0, 0, true)
	f.Add(3600.0, 3600.0, 1200, true)
	f.Fuzz(func(t *testing.T, width, height float64, dpi int, png bool) {
		fig := &Figure{Format: SVG, Width: vg.Length(width), Height: vg.Length(height), DPI: dpi}
		if png {
			fig.Format = PNG
		}
		if err := fig.check(); err != nil {
			return
		}
		for _, side := range []vg.Length{fig.Width, fig.Height} {
			if !(side >= minSide && side <= maxSide) {
				t.Fatalf("side %v accepted", side)
			}
			if png && float64(side/vg.Inch)*float64(dpi) > maxPixels {
				t.Fatalf("%v at %d dpi accepted", side, dpi)
			}
		}
		if dpi < minDPI || dpi > maxDPI {
			t.Fatalf("dpi %d accepted", dpi)
		}
	})
}
