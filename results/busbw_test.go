package results

import (
	"math"
	"testing"
)

func TestBusBwFactor(t *testing.T) {
	tests := []struct {
		coll   string
		nranks int
		want   float64
	}{
		{"all_reduce", 2, 1},
		{"all_reduce", 8, 1.75},
		{"allreduce", 4, 1.5},
		{"all_reduce_perf", 8, 1.75},
		{"AllReduce", 8, 1.75},
		{"all_reduce", 1, 0},
		{"all_gather", 2, 0.5},
		{"all_gather", 8, 0.875},
		{"reduce_scatter", 4, 0.75},
		{"alltoall", 8, 0.875},
		{"gather", 4, 0.75},
		{"scatter", 4, 0.75},
		{"alltoallv_perf", 8, 0.875},
		{"hypercube_perf", 8, 1},
		{"broadcast", 8, 1},
		{"reduce", 8, 1},
		{"sendrecv", 2, 1},
		{"sendrecv_perf", 2, 1},
		{"no_such_collective", 8, 1}, // unknown: documented fallback
		{"", 8, 1},
		{"all_gather", 0, 0}, // nranks < 1 treated as 1
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
		{"all_reduce", true}, {"all_gather_perf", true}, {"reduce-scatter", true},
		{"alltoall", true}, {"sendrecv", true}, {"hypercube_perf", true}, {"alltoallv", true},
		{"gather", true}, {"scatter_perf", true}, {"all_to_all_w", false}, {"", false},
	}
	for _, tt := range tests {
		if got := KnownCollective(tt.coll); got != tt.want {
			t.Errorf("KnownCollective(%q) = %v, want %v", tt.coll, got, tt.want)
		}
	}
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
	// all_gather on 2 ranks: busbw is half of algbw (baseline: 544.06 -> 272.03).
	if got := BusBw(544.06, "all_gather", 2); math.Abs(got-272.03) > 1e-9 {
		t.Errorf("BusBw(all_gather, 2) = %v, want 272.03", got)
	}
}
