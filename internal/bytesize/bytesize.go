// Package bytesize reads and writes byte counts the way nccl-tests' flags spell them: digits
// with an optional K, M or G suffix (powers of 1024), e.g. "8", "64K", "1.5M", "2G".
package bytesize

import (
	"fmt"
	"strconv"
	"strings"
)

// Max bounds Parse: 1 PiB.
const Max = 1 << 50

// Parse reads a byte count: digits, an optional fraction, an optional K, M or G suffix
// (either case, spaces allowed around it). The result must be a whole number of bytes.
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	unit := int64(1)
	if t != "" {
		switch t[len(t)-1] {
		case 'k', 'K':
			unit = 1 << 10
		case 'm', 'M':
			unit = 1 << 20
		case 'g', 'G':
			unit = 1 << 30
		}
	}
	if unit != 1 {
		t = strings.TrimSpace(t[:len(t)-1])
	}
	whole, frac, _ := strings.Cut(t, ".")
	if whole == "" || !allDigits(whole) || !allDigits(frac) {
		return 0, fmt.Errorf("invalid size %q (want digits with an optional K, M or G suffix)", s)
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f*float64(unit) > Max {
		return 0, fmt.Errorf("size %q is out of range", s)
	}
	b := f * float64(unit)
	if b != float64(int64(b)) {
		return 0, fmt.Errorf("size %q is not a whole number of bytes", s)
	}
	return int64(b), nil
}

// allDigits reports whether s holds only ASCII digits (true for "").
func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Format writes n the way Parse reads it, with the largest suffix that keeps it whole: 8,
// 1K, 256M, 2G, 1536K.
func Format(n int64) string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
