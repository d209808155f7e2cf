package all

import (
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/alltoallv"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/broadcast"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/collectivestest"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/gather"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/hypercube"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/scatter"
	"github.com/mscclpp-bench/mscclpp-bench/harness"
)

// TestSlotCounts: nccl-tests' getCollByteCount for the collectives that move one slot per
// rank: a slot is count/nranks elements rounded down to 16 bytes; gather and hypercube
// send one and receive nranks, rank r's input being slot r of its output in place;
// scatter sends nranks and receives one, rank r's output being slot r in place.
func TestSlotCounts(t *testing.T) {
	tests := []struct {
		size   int64
		dtype  string
		nranks int
		slot   int64
	}{
		{0, "float", 2, 0},
		{8, "float", 2, 0},
		{32, "float", 2, 4},
		{1000, "int8", 3, 320},
		{1000, "double", 8, 14}, // 15 each, down to 14 (16 bytes: 2 doubles)
		{1 << 30, "bfloat16", 4, 1 << 27},
		{17, "int8", 1, 16},
	}
	for _, tt := range tests {
		dt := collectivestest.MustType(t, tt.dtype)
		n := int64(tt.nranks)
		for coll, want := range map[string]collectives.Counts{
			"gather":    {Send: tt.slot, Recv: tt.slot * n, Param: tt.slot, SendInPlace: tt.slot},
			"hypercube": {Send: tt.slot, Recv: tt.slot * n, Param: tt.slot, SendInPlace: tt.slot},
			"scatter":   {Send: tt.slot * n, Recv: tt.slot, Param: tt.slot, RecvInPlace: tt.slot},
		} {
			got := collectivestest.MustLookup(t, coll).Counts(tt.size, dt, tt.nranks)
			if got != want {
				t.Errorf("%s Counts(%d, %s, %d) = %+v, want %+v", coll, tt.size, tt.dtype, tt.nranks, got, want)
			}
			if s := got.SizeBytes(dt.Size); s != tt.slot*n*int64(dt.Size) || s > tt.size {
				t.Errorf("%s Counts(%d, %s, %d): size column %d", coll, tt.size, tt.dtype, tt.nranks, s)
			}
		}
	}
}

// TestNewCollectivesRegistry: gather and scatter take -r, none of the four takes -o, each
// runs under its nccl-tests name, -k auto picks its memory-channel algorithm on 2 or more
// ranks and the fallback on one, and hypercube refuses rank counts that are not powers of
// two and leaves its redop column blank.
func TestNewCollectivesRegistry(t *testing.T) {
	for _, tt := range []struct {
		coll, testName, alg string
		root                bool
	}{
		{"gather", "gather_perf", "read", true},
		{"scatter", "scatter_perf", "read", true},
		{"alltoallv", "alltoallv_perf", "read", false},
		{"hypercube", "hypercube_perf", "put", false},
	} {
		c := collectivestest.MustLookup(t, tt.coll)
		if c.HasOp() || c.HasRoot() != tt.root || c.TestName() != tt.testName || c.Doc() == "" {
			t.Errorf("%s: HasOp %v, HasRoot %v, TestName %s, Doc %q", tt.coll, c.HasOp(), c.HasRoot(), c.TestName(), c.Doc())
		}
		for _, n := range []int{1, 2, 4, 8} {
			want := tt.alg
			if n == 1 {
				want = "local"
			}
			algs, err := collectives.Select(tt.coll, "auto", 1<<20, n, "float")
			if err != nil || len(algs) != 1 || algs[0].Name != want {
				t.Errorf("Select(%s, auto, %d ranks) = %v, %v; want %s", tt.coll, n, algs, err, want)
			}
		}
		if err := collectives.ValidKernel(tt.coll, tt.alg); err != nil {
			t.Errorf("ValidKernel(%s, %s): %v", tt.coll, tt.alg, err)
		}
		wantOp := "none"
		if tt.coll == "hypercube" {
			wantOp = ""
		}
		if got := collectives.OpLabel(c, collectives.OpNone); got != wantOp {
			t.Errorf("%s: redop column %q, want %q", tt.coll, got, wantOp)
		}
	}
	for n, ok := range map[int]bool{1: true, 2: true, 3: false, 4: true, 6: false, 8: true, 12: false, 16: true, 0: false} {
		err := collectives.CheckRanks(collectivestest.MustLookup(t, "hypercube"), n)
		if ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "power-of-two")) {
			t.Errorf("hypercube CheckRanks(%d) = %v, want ok %v", n, err, ok)
		}
		if err := collectives.CheckRanks(collectivestest.MustLookup(t, "gather"), n); err != nil {
			t.Errorf("gather CheckRanks(%d) = %v", n, err)
		}
	}
	if got := collectives.OpLabel(collectivestest.MustLookup(t, "allreduce"), collectives.OpMax); got != "max" {
		t.Errorf("allreduce's redop column %q, want max", got)
	}
}

// TestNewCollectivesLaunch: each algorithm's kernel gets the channels of the placement, my
// input and output, the offsets where the peers' data lies (gather: rank r's input is slot
// r of its output in place; scatter: my slot of the root's input; hypercube: the outputs'
// offset; alltoallv: the inputs' offset, or 0 in the scratch in place), the sizes, and a
// grid within the SMs (gather's non-root ranks only meet the root).
func TestNewCollectivesLaunch(t *testing.T) {
	const inChans, outChans, blockChans, scratchChans, scratch, state = 0x1000, 0x2000, 0x4000, 0x5000, 0x6000, 0x3000
	for _, tt := range []struct {
		coll               string
		rank, nranks, root int
		inPlace            bool
		size               int64
		grid               int
		// want returns the arguments from my input and output, the shift and the counts
		want func(in, out, shift uint64, c collectives.Counts) []uint64
	}{
		{"gather", 0, 2, 0, false, 1 << 20, 64, func(in, out, shift uint64, c collectives.Counts) []uint64 {
			return []uint64{inChans, in, out, shift, 0, 512 << 10, 0, 0, 2, state}
		}},
		{"gather", 2, 3, 2, true, 3 << 20, 132, func(in, out, shift uint64, c collectives.Counts) []uint64 {
			return []uint64{outChans, out + 2<<20, out, shift, 1 << 20, 1 << 20, 2, 2, 3, state}
		}},
		{"gather", 1, 3, 2, true, 3 << 20, 1, func(in, out, shift uint64, c collectives.Counts) []uint64 {
			return []uint64{outChans, out + 1<<20, out, shift, 1 << 20, 1 << 20, 2, 1, 3, state}
		}},
		// broadcast_read(chans, in, out, rootInOff, bytes, root, rank, nranks, state)
		{"scatter", 1, 2, 0, false, 1 << 20, 32, func(in, out, shift uint64, c collectives.Counts) []uint64 {
			return []uint64{inChans, in + 512<<10, out, shift + 512<<10, 512 << 10, 0, 1, 2, state}
		}},
		{"scatter", 2, 4, 3, true, 4 << 20, 64, func(in, out, shift uint64, c collectives.Counts) []uint64 {
			// in place the root's input starts my output buffer's region and my output is slot 2
			return []uint64{outChans, out + 2<<20, out + 2<<20, shift + 2<<20, 1 << 20, 3, 2, 4, state}
		}},
		// hypercube_put(chans, in, out, off, chunk, rank, nranks, state)
		{"hypercube", 3, 4, 0, false, 4 << 20, 64, func(in, out, shift uint64, c collectives.Counts) []uint64 {
			return []uint64{blockChans, in, out, shift, 1 << 20, 3, 4, state}
		}},
		{"hypercube", 1, 2, 0, true, 1 << 10, 1, func(in, out, shift uint64, c collectives.Counts) []uint64 {
			return []uint64{blockChans, out + 512, out, shift, 512, 1, 2, state}
		}},
		// alltoallv_read(chans, in, out, scratch, srcOff, total, sendBytes, rank, nranks, inPlace, state)
		{"alltoallv", 1, 3, 0, false, 3000, 1, func(in, out, shift uint64, c collectives.Counts) []uint64 {
			return []uint64{inChans, in, out, scratch, shift, 2976, uint64(c.Send) * 4, 1, 3, 0, state}
		}},
		{"alltoallv", 0, 2, 0, true, 1 << 20, 64, func(in, out, shift uint64, c collectives.Counts) []uint64 {
			return []uint64{scratchChans, out, out, scratch, 0, 1 << 20, 1 << 20, 0, 2, 1, state}
		}},
	} {
		g := &launchRecorder{}
		env := &collectives.Env{GPU: g, Rank: tt.rank, NRanks: tt.nranks, SMs: 132, In: fakeBuffers(tt.nranks, 1<<40), Out: fakeBuffers(tt.nranks, 2<<40)}
		b, p := &algo.Base{Env: env, State: state}, algo.PeerBuffers{InChans: inChans, OutChans: outChans}
		var inst collectives.Instance
		var err error
		switch tt.coll {
		case "gather":
			k, lerr := gather.GatherRead.Load(g)
			inst, err = &gather.GatherReadInstance{Base: b, PeerBuffers: p, K: k}, lerr
		case "scatter":
			k, lerr := broadcast.BroadcastRead.Load(g)
			inst, err = &scatter.ScatterRead{Base: b, PeerBuffers: p, K: k}, lerr
		case "hypercube":
			k, lerr := hypercube.HypercubePut.Load(g)
			inst, err = &hypercube.HypercubePutInstance{BlockPut: &algo.BlockPut[hypercube.HypercubeArgs]{Base: b, Kernel: k, Chans: blockChans}}, lerr
		case "alltoallv":
			k, lerr := alltoallv.AlltoallvRead.Load(g)
			inst, err = &alltoallv.AlltoallvReadInstance{Base: b, K: k, InChans: inChans, Scratch: scratch, ScratchChans: scratchChans}, lerr
		}
		if err != nil {
			t.Fatal(err)
		}
		dt := collectivestest.MustType(t, "float")
		c := collectivestest.MustLookup(t, tt.coll).Counts(tt.size, dt, tt.nranks)
		h := &harness.Harness{Env: &collectives.Env{Rank: tt.rank, NRanks: tt.nranks, OutBytes: 4 << 30}}
		l := h.At(&collectives.LaunchArgs{Type: dt, Root: tt.root, Count: c.Send, Param: c.Param, SendBytes: uint64(c.Send) * 4,
			RecvBytes: uint64(c.Recv) * 4, InPlace: tt.inPlace, SendInPlace: uint64(c.SendInPlace) * 4, RecvInPlace: uint64(c.RecvInPlace) * 4}, 1)
		if err := inst.Launch(l, 0); err != nil {
			t.Fatal(err)
		}
		in := uint64(env.In.Ptrs[tt.rank]) + l.Shift
		out := uint64(env.Out.Ptrs[tt.rank]) + l.Shift
		want := tt.want(in, out, l.Shift, c)
		if len(g.args) != len(want) {
			t.Fatalf("%s %+v: %d arguments, want %d", tt.coll, tt, len(g.args), len(want))
		}
		for i := range want {
			if g.args[i] != want[i] {
				t.Errorf("%s rank %d of %d, in place %v: argument %d = %#x, want %#x", tt.coll, tt.rank, tt.nranks, tt.inPlace, i, g.args[i], want[i])
			}
		}
		if l.Shift == 0 || g.dim.Grid != tt.grid || g.dim.Block != 1024 {
			t.Errorf("%s rank %d of %d: shift %d, grid %d x %d; want a shift, grid %d x 1024", tt.coll, tt.rank, tt.nranks, l.Shift, g.dim.Grid, g.dim.Block, tt.grid)
		}
	}
}
