package alltoallv

import (
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/collectivestest"
)

// TestAlltoallvPeerBytes: nccl-tests' distance-weighted pattern at spread 1, worked by
// hand: rank i sends rank j distance*total/(n(n-1)/2) bytes, rounded down to 16, where
// distance = (j-i) mod n; nothing to itself; one rank keeps everything.
func TestAlltoallvPeerBytes(t *testing.T) {
	tests := []struct {
		from, to, nranks int
		total            int64
		want             int64
	}{
		{0, 1, 2, 32, 32},    // the whole total to the one peer
		{1, 0, 2, 32, 32},    // distance (0-1) mod 2 = 1
		{0, 0, 2, 32, 0},     // nothing to itself
		{0, 1, 3, 960, 320},  // 1*960/3
		{0, 2, 3, 960, 640},  // 2*960/3
		{2, 0, 3, 960, 320},  // distance 1
		{1, 0, 3, 960, 640},  // distance 2
		{0, 1, 3, 1000, 320}, // 333.3 down to 320
		{0, 2, 3, 1000, 656}, // 666.7 down to 656
		{0, 7, 8, 1 << 20, 7 * (1 << 20) / 28},
		{3, 2, 8, 4096, 1024}, // distance 7: 7*4096/28
		{0, 0, 1, 1000, 992},  // one rank: the total, rounded down
		{0, 1, 2, 0, 0},
	}
	for _, tt := range tests {
		if got := algo.AlltoallvPeerBytes(tt.from, tt.to, tt.nranks, tt.total); got != tt.want {
			t.Errorf("AlltoallvPeerBytes(%d -> %d, %d ranks, %d B) = %d, want %d", tt.from, tt.to, tt.nranks, tt.total, got, tt.want)
		}
	}
}

// TestAlltoallvCounts: nccl-tests' getCollByteCount: the printed count is alltoall's
// chunk; every rank sends and receives the sum of its segments (symmetric, so the same on
// every rank); both in-place offsets are 0.
func TestAlltoallvCounts(t *testing.T) {
	tests := []struct {
		size        int64
		dtype       string
		nranks      int
		param, send int64
	}{
		{8, "float", 2, 0, 0},
		{32, "float", 2, 4, 8},
		{1000, "int8", 3, 320, 960}, // segments 0, 320, 640
		{1000, "float", 3, 80, 240}, // total 960 bytes: 0 + 320 + 640 bytes
		// total 1 MiB: 37440 + 74896 + 112336 + 149792 + 187232 + 224688 + 262144 bytes
		{1 << 20, "half", 8, 65536, 1048528 / 2},
		{17, "int8", 1, 16, 16},
	}
	for _, tt := range tests {
		dt := collectivestest.MustType(t, tt.dtype)
		got := collectivestest.MustLookup(t, "alltoallv").Counts(tt.size, dt, tt.nranks)
		want := collectives.Counts{Send: tt.send, Recv: tt.send, Param: tt.param}
		if got != want {
			t.Errorf("Counts(%d, %s, %d) = %+v, want %+v", tt.size, tt.dtype, tt.nranks, got, want)
		}
	}
}

// TestAlltoallvSegments: on any rank count, the segments a rank sends lie one after the
// other and fill its input, the segments it receives fill its output, and the segment
// from i to j is where rank i's stream holds it and where rank j's output expects it.
func TestAlltoallvSegments(t *testing.T) {
	for _, n := range []int{2, 3, 5, 8} {
		for _, size := range []int64{0, 96, 1000, 1 << 20, 3<<30 + 48} {
			dt := collectivestest.MustType(t, "float")
			c := collectivestest.MustLookup(t, "alltoallv").Counts(size, dt, n)
			a := &collectives.LaunchArgs{Type: dt, Param: c.Param}
			total := algo.AlltoallvTotal(a, n)
			for me := 0; me < n; me++ {
				var sent, recv uint64
				for q := 0; q < n; q++ {
					out, in := AlltoallvSegment(me, q, n, total), AlltoallvSegment(q, me, n, total)
					if out.From != sent || in.To != recv {
						t.Fatalf("%d ranks, %d B: rank %d's segment for %d starts at %d (want %d), from %d at %d (want %d)", n, size, me, q, out.From, sent, q, in.To, recv)
					}
					sent += out.Bytes
					recv += in.Bytes
				}
				if sent != uint64(c.Send*4) || recv != uint64(c.Recv*4) {
					t.Errorf("%d ranks, %d B, rank %d: sends %d and receives %d bytes; Counts says %d, %d", n, size, me, sent, recv, c.Send*4, c.Recv*4)
				}
			}
		}
	}
}
