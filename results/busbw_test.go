package results

import (
	"math"
	"testing"
)

// The factors these tests register, under names no collective has.
func init() {
	RegisterBusFactor("test_twice_ring", func(n int) float64 { return 2 * float64(n-1) / float64(n) })
	RegisterBusFactor("testring", func(n int) float64 { return float64(n-1) / float64(n) })
}

func TestBusBwFactor(t *testing.T) {
	tests := []struct {
		coll   string
		nranks int
		want   float64
	}{
		{"test_twice_ring", 2, 1},
		{"test_twice_ring", 8, 1.75},
		{"testtwicering", 4, 1.5},
		{"test_twice_ring_perf", 8, 1.75},
		{"Test_Twice-Ring", 8, 1.75},
		{"test_twice_ring", 1, 0},
		{"test_ring", 2, 0.5},
		{"test_ring_perf", 8, 0.875},
		{"no_such_collective", 8, 1}, // unknown: documented fallback
		{"", 8, 1},
		{"test_ring", 0, 0}, // nranks < 1 treated as 1
	}
	for _, tt := range tests {
		if got := BusBwFactor(tt.coll, tt.nranks); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("BusBwFactor(%q, %d) = %v, want %v", tt.coll, tt.nranks, got, tt.want)
		}
	}
}

func TestKnownCollective(t *testing.T) {
	tests := []struct {
		coll string
		want bool
	}{
		{"test_ring", true}, {"test_ring_perf", true}, {"test-twice-ring", true},
		{"test_ring_w", false}, {"", false},
	}
	for _, tt := range tests {
		if got := KnownCollective(tt.coll); got != tt.want {
			t.Errorf("KnownCollective(%q) = %v, want %v", tt.coll, got, tt.want)
		}
	}
}

// TestRegisterBusFactorTwice: one name (in any spelling) registered twice is a
// programming error that panics.
func TestRegisterBusFactorTwice(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("registering test_ring's factor again (as Test_Ring_perf) did not panic")
		}
	}()
	RegisterBusFactor("Test_Ring_perf", func(int) float64 { return 1 })
}

func TestAlgBwAndBusBw(t *testing.T) {
	tests := []struct {
		name    string
		bytes   int64
		seconds float64
		want    float64
	}{
		{"1GB in 1s", 1e9, 1, 1},
		{"2GiB baseline row", 2147483648, 6369.073675e-6, 337.173623},
		{"zero bytes", 0, 1e-6, 0},
		{"zero time", 1024, 0, 0},
		{"negative time", 1024, -1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AlgBw(tt.bytes, tt.seconds); math.Abs(got-tt.want) > 1e-6 {
				t.Errorf("AlgBw(%d, %g) = %v, want %v", tt.bytes, tt.seconds, got, tt.want)
			}
		})
	}
	// an (n-1)/n collective on 2 ranks: busbw is half of algbw (baseline all_gather:
	// 544.06 -> 272.03).
	if got := BusBw(544.06, "test_ring", 2); math.Abs(got-272.03) > 1e-9 {
		t.Errorf("BusBw(test_ring, 2) = %v, want 272.03", got)
	}
}
