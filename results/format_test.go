package results

import (
	"math"
	"testing"
)

// Expected strings were produced by the C getFloatStr/printf logic
// (glibc) for the same inputs.
func TestFormatFloat(t *testing.T) {
	tests := []struct {
		value float64
		t7    string // width 7 (time)
		b6    string // width 6 (bandwidth)
	}{
		{0, "   0.00", "  0.00"},
		{0.004, "   0.00", "  0.00"},
		{0.005, "   0.01", "  0.01"}, // 0.005000000000000000104 rounds up
		{0.015, "   0.01", "  0.01"}, // 0.01499999999999999944 rounds down
		{6369.07, "6369.07", "6369.1"},
		{6369.073675, "6369.07", "6369.1"},
		{9999.994, "9999.99", " 10000"},
		{9999.995, "10000.0", " 10000"},
		{99999.95, "99999.9", "100000"},
		{123456.7, " 123457", "123457"},
		{999999.4, " 999999", "999999"},
		{999999.6, "1000000", " 1e+06"},
		{1234567, "1234567", " 1e+06"},
		{12345678, "1.2e+07", " 1e+07"},
		{1e9, "1.0e+09", " 1e+09"},
		{1e100, "1.0e+10", "1e+100"}, // C truncates the too-wide exponent form
		{999.99, " 999.99", "999.99"},
		{999.995, "1000.00", "1000.0"},
		{1000, "1000.00", "1000.0"},
		{337.173623, " 337.17", "337.17"},
		{-1.5, "  -1.50", " -1.50"},
		{-12345.6, " -12346", "-12346"},
		{1e-10, "   0.00", "  0.00"},
		{math.Inf(1), "    inf", "   inf"},
		{math.Inf(-1), "   -inf", "  -inf"},
		{math.NaN(), "    nan", "   nan"},
	}
	for _, tt := range tests {
		if got := FormatTime(tt.value); got != tt.t7 {
			t.Errorf("FormatTime(%v) = %q, want %q", tt.value, got, tt.t7)
		}
		if got := FormatBw(tt.value); got != tt.b6 {
			t.Errorf("FormatBw(%v) = %q, want %q", tt.value, got, tt.b6)
		}
		if got := FormatFloat(tt.value, 7); len(got) != 7 {
			t.Errorf("FormatFloat(%v, 7) = %q: width %d", tt.value, got, len(got))
		}
	}
}

func TestFormatWrong(t *testing.T) {
	tests := []struct {
		wrong int64
		want  string
	}{
		{0, "     0"},
		{7, "     7"},
		{123456, "123456"},
		{1234567, "1.23457e+06"}, // C "%6g" overflows the field
		{12345678, "1.23457e+07"},
		{10000000, " 1e+07"},
		{-1, "  N/A"},
		{-5, "  N/A"},
	}
	for _, tt := range tests {
		if got := FormatWrong(tt.wrong); got != tt.want {
			t.Errorf("FormatWrong(%d) = %q, want %q", tt.wrong, got, tt.want)
		}
	}
}

func TestFormatG(t *testing.T) {
	tests := []struct {
		value float64
		want  string
	}{
		{95.960195, "95.9602"},
		{76.1027, "76.1027"},
		{100.779022, "100.779"},
		{117.44200000001, "117.442"},
		{0, "0"},
		{1e-5, "1e-05"},
		{0.0001, "0.0001"},
		{2147483648, "2.14748e+09"},
		{0.5, "0.5"},
		{-3, "-3"},
	}
	for _, tt := range tests {
		if got := formatG(tt.value, 0); got != tt.want {
			t.Errorf("formatG(%v) = %q, want %q", tt.value, got, tt.want)
		}
	}
}
