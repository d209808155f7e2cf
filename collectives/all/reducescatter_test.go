package all

import (
	"math"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/collectivestest"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// TestReduceScatterCounts: nccl-tests' getCollByteCount for reduce_scatter: a block of
// (count/nranks) elements rounded down to 16 bytes; every rank sends nranks blocks and
// receives one; in place, rank r's output is r blocks into its buffer.
func TestReduceScatterCounts(t *testing.T) {
	tests := []struct {
		size   int64
		dtype  string
		nranks int
		block  int64
	}{
		{0, "float", 2, 0},
		{8, "float", 2, 0},     // 1 element each: below 16 bytes
		{32, "float", 2, 4},    // 4 floats each
		{48, "float", 2, 4},    // 6 each, down to 4
		{1000, "int8", 3, 320}, // 333 each, down to 320
		{1000, "double", 2, 62},
		{1000, "half", 8, 56}, // 62 each, down to 56
		{32 << 20, "float", 8, 1 << 20},
		{17, "int8", 1, 16},
	}
	c := collectivestest.MustLookup(t, "reducescatter")
	for _, tt := range tests {
		dt := collectivestest.MustType(t, tt.dtype)
		got := c.Counts(tt.size, dt, tt.nranks)
		want := collectives.Counts{Send: tt.block * int64(tt.nranks), Recv: tt.block, Param: tt.block, SendInPlace: 0, RecvInPlace: tt.block}
		if got != want {
			t.Errorf("Counts(%d, %s, %d) = %+v, want %+v", tt.size, tt.dtype, tt.nranks, got, want)
		}
		// the size column is the bytes sent, never more than asked for
		if s := got.SizeBytes(dt.Size); s != got.Send*int64(dt.Size) || s > tt.size {
			t.Errorf("Counts(%d, %s, %d): size column %d", tt.size, tt.dtype, tt.nranks, s)
		}
	}
}

// TestBandwidthAsNCCLTests: algbw and busbw of each collective, worked by hand from
// nccl-tests' getBw (count*typesize*scale/1e9/sec, times the bus factor).
func TestBandwidthAsNCCLTests(t *testing.T) {
	const sec = 1e-3
	tests := []struct {
		coll         string
		param        int64
		elt, nranks  int
		algBw, busBw float64
	}{
		{"reducescatter", 1024, 4, 4, 0.016384, 0.012288}, // 1024*4*4 bytes; factor 3/4
		{"reducescatter", 1024, 4, 1, 0.004096, 0},        // one rank: factor 0
		{"allgather", 1024, 4, 4, 0.016384, 0.012288},
		{"allreduce", 1024, 4, 4, 0.004096, 0.006144}, // 1024*4 bytes; factor 2*3/4
		{"reducescatter", 0, 4, 2, 0, 0},
		// alltoall: paramcount*typesize*nranks bytes; factor (n-1)/n
		{"alltoall", 1024, 4, 4, 0.016384, 0.012288},
		{"alltoall", 1024, 2, 2, 0.004096, 0.002048},
		{"alltoall", 1024, 4, 1, 0.004096, 0},
		// sendrecv: count*typesize bytes; factor 1
		{"sendrecv", 1024, 4, 4, 0.004096, 0.004096},
		{"sendrecv", 1000, 8, 2, 0.008, 0.008},
		{"sendrecv", 0, 4, 2, 0, 0},
	}
	for _, tt := range tests {
		alg, bus := collectivestest.MustLookup(t, tt.coll).Bandwidth(collectives.Counts{Param: tt.param}, tt.elt, sec, tt.nranks)
		if math.Abs(alg-tt.algBw) > 1e-12 || math.Abs(bus-tt.busBw) > 1e-12 {
			t.Errorf("%s Bandwidth(%d x %d B, %d ranks) = %g, %g; want %g, %g", tt.coll, tt.param, tt.elt, tt.nranks, alg, bus, tt.algBw, tt.busBw)
		}
	}
	// every registered collective's Bandwidth uses the factor results (compare, reports of
	// nccl-tests' files) gets from it under its nccl-tests name
	for _, c := range collectives.Collectives() {
		for _, n := range []int{1, 2, 3, 8} {
			alg, bus := c.Bandwidth(collectives.Counts{Send: 4096, Recv: 4096, Param: 4096}, 4, sec, n)
			if c.Name() == "hypercube" && n == 1 {
				// nothing moves between ranks: nccl-tests' algbw and busbw are 0
				if alg != 0 || bus != 0 {
					t.Errorf("hypercube on 1 rank: Bandwidth = %g, %g; want 0, 0", alg, bus)
				}
				continue
			}
			if want := results.BusBwFactor(c.TestName(), n); alg <= 0 || math.Abs(bus/alg-want) > 1e-12 {
				t.Errorf("%s on %d ranks: busbw/algbw = %g/%g, want factor %g", c.Name(), n, bus, alg, want)
			}
		}
	}
}

// TestReduceScatterRegistry: the collective is registered with its read algorithm, gets
// the one-rank fallback from the registry, and -k auto picks by rank count.
func TestReduceScatterRegistry(t *testing.T) {
	found := false
	for _, c := range collectives.Collectives() {
		found = found || c.Name() == "reducescatter"
	}
	if !found {
		t.Fatal("Collectives() lacks reducescatter")
	}
	c := collectivestest.MustLookup(t, "reducescatter")
	if !c.HasOp() || c.HasRoot() || c.TestName() != "reduce_scatter_perf" {
		t.Errorf("reducescatter: HasOp %v, HasRoot %v, TestName %s", c.HasOp(), c.HasRoot(), c.TestName())
	}
	for _, tt := range []struct {
		nranks int
		want   string
	}{{1, "local"}, {2, "read"}, {8, "read"}} {
		algs, err := collectives.Select("reducescatter", "auto", 4<<20, tt.nranks, "bfloat16") // above ll16's range
		if err != nil || len(algs) != 1 || algs[0].Name != tt.want {
			t.Errorf("Select(reducescatter, auto, %d ranks) = %v, %v; want %s", tt.nranks, algs, err, tt.want)
		}
	}
	for _, k := range []string{"read", "1", "local", "99"} {
		if err := collectives.ValidKernel("reducescatter", k); err != nil {
			t.Errorf("ValidKernel(reducescatter, %s): %v", k, err)
		}
	}
	// every collective has the fallback, because the registry adds it
	for _, c := range collectives.Collectives() {
		if a, err := collectives.Find(c.Name(), "local"); err != nil || a.MinRanks != 1 || a.MaxRanks != 1 {
			t.Errorf("%s has no one-rank fallback: %v", c.Name(), err)
		}
	}
}

// TestBusFactorsAsNCCLTests: the registered collectives' factors are nccl-tests'
// (doc/PERFORMANCE.md), and results finds them under every spelling of the names.
func TestBusFactorsAsNCCLTests(t *testing.T) {
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
		{"all_gather", 0, 0}, // nranks < 1 treated as 1
	}
	for _, tt := range tests {
		if !results.KnownCollective(tt.coll) {
			t.Errorf("results does not know %q", tt.coll)
		}
		if got := results.BusBwFactor(tt.coll, tt.nranks); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("BusBwFactor(%q, %d) = %v, want %v", tt.coll, tt.nranks, got, tt.want)
		}
	}
	for _, c := range collectives.Collectives() {
		if !results.KnownCollective(c.TestName()) {
			t.Errorf("results does not know %s's bus factor under %s", c.Name(), c.TestName())
		}
	}
}
