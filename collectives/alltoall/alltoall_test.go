package alltoall

import (
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/collectivestest"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/sendrecv"
)

// TestMoverCounts: nccl-tests' getCollByteCount for alltoall (a chunk of count/nranks
// elements rounded down to 16 bytes, nranks chunks sent and received) and sendrecv (the
// whole count, not rounded); in place, both start at the buffer's start on every rank.
func TestMoverCounts(t *testing.T) {
	tests := []struct {
		coll   string
		size   int64
		dtype  string
		nranks int
		param  int64 // nccl-tests' paramcount
		send   int64 // its sendcount (= recvcount)
	}{
		{"alltoall", 0, "float", 2, 0, 0},
		{"alltoall", 8, "float", 2, 0, 0}, // one float each: below 16 bytes
		{"alltoall", 32, "float", 2, 4, 8},
		{"alltoall", 1000, "int8", 3, 320, 960}, // 333 each, down to 320
		{"alltoall", 1000, "double", 2, 62, 124},
		{"alltoall", 1000, "half", 8, 56, 448}, // 62 each, down to 56
		{"alltoall", 32 << 20, "float", 8, 1 << 20, 8 << 20},
		{"alltoall", 17, "int8", 1, 16, 16},
		{"sendrecv", 0, "float", 2, 0, 0},
		{"sendrecv", 3, "float", 2, 0, 0},
		{"sendrecv", 6, "float", 2, 1, 1},
		{"sendrecv", 8, "float", 2, 2, 2},
		{"sendrecv", 1000, "double", 3, 125, 125},
		{"sendrecv", 17, "int8", 8, 17, 17},
		{"sendrecv", 1 << 30, "bfloat16", 2, 1 << 29, 1 << 29},
	}
	for _, tt := range tests {
		dt := collectivestest.MustType(t, tt.dtype)
		got := collectivestest.MustLookup(t, tt.coll).Counts(tt.size, dt, tt.nranks)
		want := collectives.Counts{Send: tt.send, Recv: tt.send, Param: tt.param}
		if got != want {
			t.Errorf("%s Counts(%d, %s, %d) = %+v, want %+v", tt.coll, tt.size, tt.dtype, tt.nranks, got, want)
		}
		// the size column is the bytes sent, never more than asked for
		if s := got.SizeBytes(dt.Size); s != tt.send*int64(dt.Size) || s > tt.size {
			t.Errorf("%s Counts(%d, %s, %d): size column %d", tt.coll, tt.size, tt.dtype, tt.nranks, s)
		}
	}
}

// TestMoverRegistry: both collectives are registered under nccl-tests' program names,
// with neither op nor root, and -k auto picks their memory-channel algorithm on 2 or more
// ranks above the LL range (ll_test.go) up to the port range (port_direct_test.go) and the
// registry's fallback on one.
func TestMoverRegistry(t *testing.T) {
	for _, tt := range []struct{ coll, testName, alg string }{
		{"alltoall", "alltoall_perf", "blockput"},
		{"sendrecv", "sendrecv_perf", "put"},
	} {
		c := collectivestest.MustLookup(t, tt.coll)
		if c.HasOp() || c.HasRoot() || c.TestName() != tt.testName || c.Doc() == "" {
			t.Errorf("%s: HasOp %v, HasRoot %v, TestName %s, Doc %q", tt.coll, c.HasOp(), c.HasRoot(), c.TestName(), c.Doc())
		}
		for _, n := range []int{1, 2, 3, 8} {
			want := tt.alg
			if n == 1 {
				want = "local"
			}
			for _, size := range []int64{4 << 20, 32 << 20} {
				algs, err := collectives.Select(tt.coll, "auto", size, n, "float")
				if err != nil || len(algs) != 1 || algs[0].Name != want {
					t.Errorf("Select(%s, auto, %d B, %d ranks) = %v, %v; want %s", tt.coll, size, n, algs, err, want)
				}
			}
		}
		for _, k := range []string{tt.alg, "1", "local", "99"} {
			if err := collectives.ValidKernel(tt.coll, k); err != nil {
				t.Errorf("ValidKernel(%s, %s): %v", tt.coll, k, err)
			}
		}
	}
}

// TestPatternIDs: every (sender, receiver) pair of alltoall has its own pattern.
func TestPatternIDs(t *testing.T) {
	for _, n := range []int{1, 2, 3, 8} {
		seen := map[int]bool{}
		for from := 0; from < n; from++ {
			for to := 0; to < n; to++ {
				id := PatternID(from, to, n)
				if seen[id] {
					t.Errorf("%d ranks: pattern %d of (%d, %d) is used twice", n, id, from, to)
				}
				seen[id] = true
			}
		}
	}
	if got := []int{sendrecv.PrevRank(0, 3), sendrecv.PrevRank(1, 3), sendrecv.PrevRank(2, 3), sendrecv.PrevRank(0, 1)}; got[0] != 2 || got[1] != 0 || got[2] != 1 || got[3] != 0 {
		t.Errorf("prevRank on 3 ranks and on 1 = %v, want [2 0 1 0]", got)
	}
}
