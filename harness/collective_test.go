package harness

import (
	"math"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/collectivestest"
)

func TestLookupCollective(t *testing.T) {
	tests := []struct {
		name, testName string
		hasOp          bool
	}{
		{"allgather", "all_gather_perf", false},
		{"allreduce", "all_reduce_perf", true},
		{"reducescatter", "reduce_scatter_perf", true},
	}
	for _, tt := range tests {
		c := collectivestest.MustLookup(t, tt.name)
		if c.Name() != tt.name || c.TestName() != tt.testName || c.HasOp() != tt.hasOp {
			t.Errorf("Lookup(%s) = %s, %s, HasOp %v", tt.name, c.Name(), c.TestName(), c.HasOp())
		}
	}
	_, err := collectives.Lookup("alltoallw")
	if err == nil || !strings.Contains(err.Error(), "allgather") || !strings.Contains(err.Error(), "hypercube") {
		t.Errorf("Lookup(alltoallw) error = %v, want one listing allgather and hypercube", err)
	}
}

func TestAllgatherCounts(t *testing.T) {
	tests := []struct {
		size   int64
		dtype  string
		nranks int
		send   int64
	}{
		{8, "float", 2, 0},
		{16, "float", 2, 0},
		{32, "float", 2, 4},
		{48, "float", 2, 4},
		{64, "float", 2, 8},
		{1000, "int8", 2, 496},
		{1000, "uint8", 8, 112},
		{1000, "double", 2, 62},
		{1000, "int64", 3, 40},
		{1000, "half", 2, 248},
		{1000, "bfloat16", 4, 120},
		{0, "float", 2, 0},
		{32 << 20, "float", 8, 1 << 20},
		{32 << 20, "int8", 3, 11184800}, // 33554432/3 = 11184810 -> down to a multiple of 16
		{1 << 30, "double", 1, 1 << 27},
		{7, "int8", 1, 0},
		{17, "int8", 1, 16},
	}
	c := collectivestest.MustLookup(t, "allgather")
	for _, tt := range tests {
		dt := collectivestest.MustType(t, tt.dtype)
		got := c.Counts(tt.size, dt, tt.nranks)
		// nccl-tests: in place, rank r's input is r blocks into the output
		want := collectives.Counts{Send: tt.send, Recv: tt.send * int64(tt.nranks), Param: tt.send, SendInPlace: tt.send}
		if got != want {
			t.Errorf("allgather Counts(%d, %s, %d) = %+v, want %+v", tt.size, tt.dtype, tt.nranks, got, want)
		}
		if b := got.Send * int64(dt.Size); b%16 != 0 {
			t.Errorf("allgather Counts(%d, %s, %d): %d bytes per rank is not a multiple of 16", tt.size, tt.dtype, tt.nranks, b)
		}
		if got.Recv*int64(dt.Size) > tt.size {
			t.Errorf("allgather Counts(%d, %s, %d): receives %d elements, more than the size", tt.size, tt.dtype, tt.nranks, got.Recv)
		}
	}
}

func TestAllreduceCounts(t *testing.T) {
	tests := []struct {
		size   int64
		dtype  string
		nranks int
		count  int64
	}{
		{8, "float", 2, 2},
		{8, "double", 8, 1},
		{7, "float", 2, 1},
		{3, "float", 2, 0},
		{0, "int8", 2, 0},
		{1000, "int8", 2, 1000},
		{1000, "half", 8, 500},
		{32 << 20, "float", 8, 8 << 20},
		{32 << 20, "bfloat16", 1, 16 << 20},
	}
	c := collectivestest.MustLookup(t, "allreduce")
	for _, tt := range tests {
		got := c.Counts(tt.size, collectivestest.MustType(t, tt.dtype), tt.nranks)
		if want := (collectives.Counts{Send: tt.count, Recv: tt.count, Param: tt.count}); got != want {
			t.Errorf("allreduce Counts(%d, %s, %d) = %+v, want %+v", tt.size, tt.dtype, tt.nranks, got, want)
		}
	}
}

func TestCombineTimes(t *testing.T) {
	vals := []float64{4, 1, 9, 2}
	tests := []struct {
		average int
		want    float64
	}{
		{0, 4},  // rank 0
		{1, 4},  // mean
		{2, 1},  // minimum
		{3, 9},  // maximum
		{-1, 4}, // anything else: mean
		{17, 4}, // anything else: mean
	}
	for _, tt := range tests {
		if got := CombineTimes(vals, tt.average); got != tt.want {
			t.Errorf("CombineTimes(%v, %d) = %g, want %g", vals, tt.average, got, tt.want)
		}
	}
	// rank 0 is not always the extreme nor the mean
	more := []float64{2.5, 7.5, 0.5, 5.5}
	for avg, want := range map[int]float64{0: 2.5, 1: 4, 2: 0.5, 3: 7.5} {
		if got := CombineTimes(more, avg); got != want {
			t.Errorf("CombineTimes(%v, %d) = %g, want %g", more, avg, got, want)
		}
	}
	for avg := 0; avg <= 3; avg++ {
		if got := CombineTimes([]float64{3.25}, avg); got != 3.25 {
			t.Errorf("CombineTimes([3.25], %d) = %g", avg, got)
		}
	}
	if got := CombineTimes([]float64{1, 2}, 1); math.Abs(got-1.5) > 1e-12 {
		t.Errorf("CombineTimes([1 2], 1) = %g, want 1.5", got)
	}
}

func TestDatatypes(t *testing.T) {
	tests := []struct {
		name          string
		size          int
		float, signed bool
	}{
		{"int8", 1, false, true},
		{"uint8", 1, false, false},
		{"int32", 4, false, true},
		{"uint32", 4, false, false},
		{"int64", 8, false, true},
		{"uint64", 8, false, false},
		{"half", 2, true, true},
		{"float", 4, true, true},
		{"double", 8, true, true},
		{"bfloat16", 2, true, true},
	}
	if len(collectives.Datatypes) != len(tests) {
		t.Errorf("%d datatypes, want %d", len(collectives.Datatypes), len(tests))
	}
	for i, tt := range tests {
		dt, err := collectives.LookupDatatype(tt.name)
		if err != nil {
			t.Errorf("LookupDatatype(%s): %v", tt.name, err)
			continue
		}
		if dt.Name != tt.name || dt.Size != tt.size {
			t.Errorf("LookupDatatype(%s) = %+v, want size %d", tt.name, dt, tt.size)
		}
		if dt.Float() != tt.float || dt.Signed() != tt.signed {
			t.Errorf("%s: Float() = %v, Signed() = %v; want %v, %v", tt.name, dt.Float(), dt.Signed(), tt.float, tt.signed)
		}
		if i < len(collectives.Datatypes) && collectives.Datatypes[i].Name != tt.name {
			t.Errorf("Datatypes[%d] = %s, want %s (nccl-tests' order)", i, collectives.Datatypes[i].Name, tt.name)
		}
	}
	for _, bad := range []string{"", "fp16", "Float", "int16", "complex64"} {
		if dt, err := collectives.LookupDatatype(bad); err == nil {
			t.Errorf("LookupDatatype(%q) = %+v, want an error", bad, dt)
		}
	}
}
