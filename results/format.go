package results

import (
	"fmt"
	"math"
	"strconv"
)

// Column widths used by nccl-tests for its numeric columns.
const (
	timeWidth = 7 // "time" columns, microseconds
	bwWidth   = 6 // "algbw"/"busbw" columns, GB/s
)

// FormatFloat renders value in a field of width characters the way
// nccl-tests' getFloatStr does: it tries two decimals, then one, then none,
// and when even that overflows the field it falls back to exponent notation
// (one decimal digit when width >= 7, none otherwise). As in the C code, the
// result never exceeds width characters; an exponent form that is still too
// wide is cut at width. NaN and infinities print as C's printf does
// ("nan", "-nan", "inf", "-inf"), right-aligned.
func FormatFloat(value float64, width int) string {
	if math.IsNaN(value) || math.IsInf(value, 0) {
		return fmt.Sprintf("%*s", width, cSpecial(value))
	}
	for _, prec := range []int{2, 1, 0} {
		if s := fmt.Sprintf("%*.*f", width, prec, value); len(s) <= width {
			return s
		}
	}
	prec := 0
	if width >= 7 {
		prec = 1
	}
	s := fmt.Sprintf("%*.*e", width, prec, value)
	if len(s) > width {
		s = s[:width]
	}
	return s
}

// FormatTime formats a time in microseconds for a 7-wide time column.
func FormatTime(us float64) string { return FormatFloat(us, timeWidth) }

// FormatBw formats a bandwidth in GB/s for a 6-wide bandwidth column.
func FormatBw(gbs float64) string { return FormatFloat(gbs, bwWidth) }

// FormatWrong formats a "#wrong" column value: C's "%6g" of the count, or
// "  N/A" when wrong is negative (results were not checked). The N/A form
// is five characters wide, one less than the column: nccl-tests prints it
// that way (without -c), and data rows must match it byte for byte.
func FormatWrong(wrong int64) string {
	if wrong < 0 {
		return "  N/A"
	}
	return formatG(float64(wrong), 6)
}

// formatG reproduces C's "%*g": six significant digits, trailing zeros
// removed, exponent form when the exponent is below -4 or at least 6, and
// a two-digit minimum exponent. Go's own %g differs (shortest
// representation), hence this helper.
func formatG(value float64, width int) string {
	var s string
	if math.IsNaN(value) || math.IsInf(value, 0) {
		s = cSpecial(value)
	} else {
		s = strconv.FormatFloat(value, 'g', 6, 64)
	}
	return fmt.Sprintf("%*s", width, s)
}

// cSpecial spells NaN and infinities as glibc's printf does.
func cSpecial(value float64) string {
	switch {
	case math.IsInf(value, 1):
		return "inf"
	case math.IsInf(value, -1):
		return "-inf"
	case math.Signbit(value):
		return "-nan"
	default:
		return "nan"
	}
}
