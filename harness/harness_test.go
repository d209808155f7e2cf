package harness

import (
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/collectivestest"
)

func TestHarnessAtOffsets(t *testing.T) {
	const outBytes = 1 << 20
	tests := []struct {
		coll   string
		size   int64
		dtype  string
		nranks int
		rank   int
		unit   uint64 // expected distance between successive iterations
	}{
		{"allgather", 8, "float", 2, 1, 256}, // nothing to send
		{"allgather", 1000, "int8", 2, 1, 1024},
		{"allgather", 4096, "float", 2, 1, 4096},
		{"allgather", 3000, "half", 4, 3, 3072},
		{"allgather", 64 << 10, "double", 8, 5, 64 << 10},
		{"allgather", 1 << 20, "float", 2, 0, 1 << 20}, // the whole buffer: always offset 0
		{"allreduce", 8, "float", 2, 1, 256},
		{"allreduce", 300, "float", 2, 1, 512},
		{"allreduce", 1000, "int8", 2, 0, 1024},
		{"allreduce", 256 << 10, "bfloat16", 8, 7, 256 << 10},
		{"allreduce", 1 << 20, "double", 2, 1, 1 << 20},
		{"reducescatter", 8, "float", 2, 1, 256}, // nothing to send
		{"reducescatter", 1000, "int8", 2, 1, 1024},
		{"reducescatter", 3000, "half", 4, 3, 3072},
		{"reducescatter", 64 << 10, "double", 8, 5, 64 << 10},
		{"reducescatter", 1 << 20, "float", 2, 1, 1 << 20},
		{"alltoall", 8, "float", 2, 1, 256}, // nothing to send
		{"alltoall", 1000, "int8", 3, 2, 1024},
		{"alltoall", 4096, "half", 8, 7, 4096},
		{"alltoall", 1 << 20, "double", 2, 1, 1 << 20},
		{"sendrecv", 8, "float", 2, 1, 256},
		{"sendrecv", 1001, "int8", 3, 2, 1024},
		{"sendrecv", 1 << 20, "float", 2, 1, 1 << 20},
	}
	for _, tt := range tests {
		coll := collectivestest.MustLookup(t, tt.coll)
		dt := collectivestest.MustType(t, tt.dtype)
		c := coll.Counts(tt.size, dt, tt.nranks)
		h := &Harness{Coll: coll, Env: &collectives.Env{Rank: tt.rank, NRanks: tt.nranks, OutBytes: outBytes, InBytes: outBytes}}
		steps := uint64(outBytes) / tt.unit
		elt := uint64(dt.Size)
		for _, inPlace := range []bool{false, true} {
			base := &collectives.LaunchArgs{Type: dt, Op: collectives.OpSum, Count: c.Send, SendBytes: uint64(c.Send) * elt,
				RecvBytes: uint64(c.Recv) * elt, InPlace: inPlace, SendInPlace: uint64(c.SendInPlace) * elt, RecvInPlace: uint64(c.RecvInPlace) * elt}
			orig := *base
			seen := map[uint64]bool{}
			for iter := 0; iter < int(3*steps)+5; iter++ {
				a := h.At(base, iter)
				if a == base {
					t.Fatalf("%s %d: at returned its argument, not a copy", tt.coll, tt.size)
				}
				if *base != orig {
					t.Fatalf("%s %d: at changed its argument", tt.coll, tt.size)
				}
				// everything but the offsets is the base's
				rest := *a
				rest.InOff, rest.OutOff, rest.Shift = 0, 0, 0
				if rest != orig {
					t.Errorf("%s %d iter %d: at changed more than the offsets: %+v", tt.coll, tt.size, iter, a)
				}
				shift := tt.unit * (uint64(iter) % steps)
				if a.Shift != shift || a.Shift%256 != 0 {
					t.Errorf("%s %d iter %d: Shift = %d, want %d (256-byte aligned)", tt.coll, tt.size, iter, a.Shift, shift)
				}
				// nccl-tests: in place, rank r's input and output are r in-place offsets into
				// the output buffer; out of place both are at the shift.
				wantIn, wantOut := shift, shift
				if inPlace {
					wantIn += uint64(tt.rank) * uint64(c.SendInPlace) * elt
					wantOut += uint64(tt.rank) * uint64(c.RecvInPlace) * elt
				}
				if a.InOff != wantIn || a.OutOff != wantOut {
					t.Errorf("%s %d (in place %v) iter %d: InOff, OutOff = %d, %d; want %d, %d", tt.coll, tt.size, inPlace, iter, a.InOff, a.OutOff, wantIn, wantOut)
				}
				if a.InOff+a.SendBytes > outBytes || a.OutOff+a.RecvBytes > outBytes {
					t.Errorf("%s %d iter %d: input [%d, +%d) or output [%d, +%d) overruns %d bytes", tt.coll, tt.size, iter, a.InOff, a.SendBytes, a.OutOff, a.RecvBytes, outBytes)
				}
				// in place, both lie inside the region of the size column's bytes at the shift
				if span := shift + uint64(c.SizeBytes(dt.Size)); inPlace && (a.InOff+a.SendBytes > span || a.OutOff+a.RecvBytes > span) {
					t.Errorf("%s %d iter %d: in-place input [%d, +%d) or output [%d, +%d) is outside [%d, %d)", tt.coll, tt.size, iter, a.InOff, a.SendBytes, a.OutOff, a.RecvBytes, shift, span)
				}
				// cycle: the offsets repeat with period steps, and are all different within one
				if b := h.At(base, iter+int(steps)); b.OutOff != a.OutOff || b.InOff != a.InOff {
					t.Errorf("%s %d: iterations %d and %d have different offsets", tt.coll, tt.size, iter, iter+int(steps))
				}
				if uint64(iter) < steps {
					if seen[a.OutOff] {
						t.Errorf("%s %d: offset %d repeats within one cycle", tt.coll, tt.size, a.OutOff)
					}
					seen[a.OutOff] = true
				}
			}
			if uint64(len(seen)) != steps {
				t.Errorf("%s %d: %d different offsets, want %d", tt.coll, tt.size, len(seen), steps)
			}
		}
	}
}

// A message larger than the buffer (never made by NewHarness) still stays at offset 0.
func TestHarnessAtOversize(t *testing.T) {
	h := &Harness{Coll: collectivestest.MustLookup(t, "allreduce"), Env: &collectives.Env{Rank: 0, NRanks: 2, OutBytes: 4096}}
	base := &collectives.LaunchArgs{Type: collectivestest.MustType(t, "float"), Count: 2048, SendBytes: 8192, RecvBytes: 8192}
	for iter := 0; iter < 4; iter++ {
		if a := h.At(base, iter); a.OutOff != 0 || a.InOff != 0 {
			t.Errorf("iter %d: offsets %d, %d; want 0, 0", iter, a.InOff, a.OutOff)
		}
	}
}

func TestRoundUpAndLimit(t *testing.T) {
	for _, tt := range []struct{ v, to, want uint64 }{
		{0, 256, 0}, {1, 256, 256}, {256, 256, 256}, {257, 256, 512}, {1000, 16, 1008},
	} {
		if got := algo.RoundUp(tt.v, tt.to); got != tt.want {
			t.Errorf("roundUp(%d, %d) = %d, want %d", tt.v, tt.to, got, tt.want)
		}
	}
	for _, tt := range []struct {
		algMax, runMax int64
		want           uint64
	}{
		{0, 1 << 30, 1 << 30}, {32 << 20, 1 << 30, 32 << 20}, {32 << 20, 1 << 20, 1 << 20},
	} {
		if got := algo.Limit(tt.algMax, tt.runMax); got != tt.want {
			t.Errorf("limit(%d, %d) = %d, want %d", tt.algMax, tt.runMax, got, tt.want)
		}
	}
}

// TestHarnessPlanPlacement: under auto, a step names the in-place algorithm only where it
// differs (AutoOutOfPlace), and its "# algorithm:" label says so; -k all and a named
// algorithm never split.
func TestHarnessPlanPlacement(t *testing.T) {
	tests := []struct {
		coll, k   string
		size      int64
		label     string
		wantSplit bool
	}{
		{"alltoall", "auto", 1 << 30, "port (#2), in place blockput (#1)", true},
		{"alltoall", "auto", 1 << 20, "ll16 (#0)", false},
		{"sendrecv", "auto", 128 << 20, "port (#2), in place put (#1)", true},
		{"sendrecv", "port", 128 << 20, "port (#2)", false},
		{"allgather", "auto", 1 << 30, "port (#3)", false},
	}
	for _, tt := range tests {
		h := &Harness{Coll: collectivestest.MustLookup(t, tt.coll), Opts: Options{Kernel: tt.k, Sizes: []int64{tt.size}},
			Env: &collectives.Env{Rank: 0, NRanks: 2, Layout: collectives.OneHostLayout(2)}}
		steps, err := h.plan("float")
		if err != nil || len(steps) != 1 {
			t.Fatalf("%s -k %s %d: plan = %v, %v", tt.coll, tt.k, tt.size, steps, err)
		}
		if got := steps[0].label(); got != tt.label || (steps[0].inPlace != nil) != tt.wantSplit {
			t.Errorf("%s -k %s %d: label %q (in place %v), want %q", tt.coll, tt.k, tt.size, got, steps[0].inPlace != nil, tt.label)
		}
	}
	h := &Harness{Coll: collectivestest.MustLookup(t, "alltoall"), Opts: Options{Kernel: "all", Sizes: []int64{1 << 30}},
		Env: &collectives.Env{Rank: 0, NRanks: 2, Layout: collectives.OneHostLayout(2)}}
	steps, err := h.plan("float")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if st.inPlace != nil {
			t.Errorf("-k all: step %s has an in-place algorithm %s", st.alg.Name, st.inPlace.Name)
		}
	}
}

func TestWarmupStep(t *testing.T) {
	a := &collectives.Algorithm{Name: "x"}
	tests := []struct {
		coll  string
		sizes []int64
		want  int64
	}{
		{"allgather", []int64{8, 32, 128}, 32}, // 8 B on 2 ranks of float: a 0-byte row
		{"allreduce", []int64{8, 32}, 8},
		{"allgather", []int64{0, 4}, 0}, // nothing moves data: the first step
	}
	for _, tt := range tests {
		h := &Harness{Coll: collectivestest.MustLookup(t, tt.coll), Env: &collectives.Env{Rank: 0, NRanks: 2}}
		var steps []step
		for _, sz := range tt.sizes {
			steps = append(steps, step{size: sz, alg: a})
		}
		dt, err := collectives.LookupDatatype("float")
		if err != nil {
			t.Fatal(err)
		}
		if got := h.warmupStep(steps, dt).size; got != tt.want {
			t.Errorf("%s warmupStep(%v) = %d, want %d", tt.coll, tt.sizes, got, tt.want)
		}
	}
}
