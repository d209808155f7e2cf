package all

import (
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/broadcast"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/collectivestest"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/reduce"
	"github.com/mscclpp-bench/mscclpp-bench/harness"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// TestRootedCounts: nccl-tests' getCollByteCount for broadcast and reduce: every rank
// sends and receives the whole count (the size's elements, rounded down), the printed
// count is that, and both in-place offsets are 0, on any number of ranks.
func TestRootedCounts(t *testing.T) {
	tests := []struct {
		size   int64
		dtype  string
		nranks int
		count  int64
	}{
		{0, "float", 2, 0},
		{8, "float", 2, 2},
		{7, "float", 2, 1}, // a partial element is dropped
		{1000, "int8", 3, 1000},
		{1000, "double", 8, 125},
		{1001, "half", 2, 500},
		{256 << 20, "bfloat16", 2, 128 << 20},
		{17, "int8", 1, 17},
	}
	for _, name := range []string{"broadcast", "reduce"} {
		c := collectivestest.MustLookup(t, name)
		for _, tt := range tests {
			dt := collectivestest.MustType(t, tt.dtype)
			got := c.Counts(tt.size, dt, tt.nranks)
			want := collectives.Counts{Send: tt.count, Recv: tt.count, Param: tt.count}
			if got != want {
				t.Errorf("%s Counts(%d, %s, %d) = %+v, want %+v", name, tt.size, tt.dtype, tt.nranks, got, want)
			}
			if s := got.SizeBytes(dt.Size); s != tt.count*int64(dt.Size) {
				t.Errorf("%s Counts(%d, %s, %d): size column %d, want %d", name, tt.size, tt.dtype, tt.nranks, s, tt.count*int64(dt.Size))
			}
		}
	}
}

// TestRootedBandwidth: algbw is count*size/time and busbw equals it (factor 1), worked by
// hand from nccl-tests' getBw.
func TestRootedBandwidth(t *testing.T) {
	for _, name := range []string{"broadcast", "reduce"} {
		for _, n := range []int{1, 2, 8} {
			alg, bus := collectivestest.MustLookup(t, name).Bandwidth(collectives.Counts{Send: 1024, Recv: 1024, Param: 1024}, 4, 1e-3, n)
			if alg != 0.004096 || bus != 0.004096 {
				t.Errorf("%s on %d ranks: Bandwidth = %g, %g; want 0.004096, 0.004096", name, n, alg, bus)
			}
		}
	}
}

// TestRootedRegistry: the rooted collectives take -r, their nccl-tests names, and -k auto
// picks the memory-channel algorithm on two or more ranks and the fallback on one.
func TestRootedRegistry(t *testing.T) {
	for _, tt := range []struct {
		name, testName string
		hasOp          bool
	}{{"broadcast", "broadcast_perf", false}, {"reduce", "reduce_perf", true}} {
		c := collectivestest.MustLookup(t, tt.name)
		if !c.HasRoot() || c.HasOp() != tt.hasOp || c.TestName() != tt.testName {
			t.Errorf("%s: HasRoot %v, HasOp %v, TestName %s", tt.name, c.HasRoot(), c.HasOp(), c.TestName())
		}
		for _, r := range []struct {
			nranks int
			want   string
		}{{1, "local"}, {2, "read"}, {8, "read"}} {
			algs, err := collectives.Select(tt.name, "auto", 2<<20, r.nranks, "half") // above ll16's range
			if err != nil || len(algs) != 1 || algs[0].Name != r.want {
				t.Errorf("Select(%s, auto, %d ranks) = %v, %v; want %s", tt.name, r.nranks, algs, err, r.want)
			}
		}
	}
}

// launchRecorder is a device.GPU stand-in that keeps the last launch's grid and arguments.
type launchRecorder struct {
	device.GPU
	dim      device.Dim
	args     []uint64
	launches int
}

func (g *launchRecorder) Kernel(name string) (device.Kernel, error) { return 1, nil }

func (g *launchRecorder) Launch(k device.Kernel, d device.Dim, s device.Stream, args ...uint64) error {
	g.dim, g.args = d, append([]uint64(nil), args...)
	g.launches++
	return nil
}

// fakeBuffers returns buffers of nranks ranks at distinct made-up addresses.
func fakeBuffers(nranks int, base device.Ptr) *channels.Buffer {
	b := &channels.Buffer{}
	for r := 0; r < nranks; r++ {
		b.Ptrs = append(b.Ptrs, base+device.Ptr(r)<<32)
	}
	return b
}

// newRootedInstance sets up a rooted collective's read algorithm on a stand-in GPU, with
// made-up channel arrays to the peers' inputs and outputs.
func newRootedInstance(t *testing.T, coll string, env *collectives.Env) collectives.Instance {
	t.Helper()
	b, p := &algo.Base{Env: env, State: 0x3000}, algo.PeerBuffers{InChans: 0x1000, OutChans: 0x2000}
	if coll == "broadcast" {
		k, err := broadcast.BroadcastRead.Load(env.GPU)
		if err != nil {
			t.Fatal(err)
		}
		return &broadcast.BroadcastReadInstance{Base: b, PeerBuffers: p, K: k}
	}
	k, err := algo.LoadTyped(env.GPU, reduce.ReduceRead, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &reduce.ReduceReadInstance{Base: b, PeerBuffers: p, K: k}
}

// TestRootedLaunch: each kernel gets the channels that reach the inputs of the placement,
// my input and output, the inputs' offset (the root's is mine: both in-place offsets are
// 0), the bytes (broadcast) or elements (reduce), the root from the launch, and a grid
// within the SMs: by size, except reduce's non-root ranks, which only meet the root.
func TestRootedLaunch(t *testing.T) {
	for _, tt := range []struct {
		coll               string
		rank, nranks, root int
		inPlace            bool
		dtype              string
		bytes, size        uint64 // bytes moved; the kernel's size argument
		grid               int
	}{
		{"broadcast", 1, 2, 0, false, "int8", 8, 8, 1},
		{"broadcast", 0, 2, 0, true, "float", 1 << 20, 1 << 20, 64},
		{"broadcast", 2, 3, 1, true, "int8", 100000, 100000, 7},
		{"broadcast", 5, 8, 7, false, "double", 1 << 30, 1 << 30, 132},
		{"reduce", 0, 2, 0, false, "float", 1 << 20, 1 << 18, 64},
		{"reduce", 1, 2, 0, true, "float", 1 << 20, 1 << 18, 1},
		{"reduce", 1, 3, 1, true, "double", 100000, 12500, 7},
		{"reduce", 7, 8, 7, false, "half", 1 << 30, 1 << 29, 132},
	} {
		g := &launchRecorder{}
		env := &collectives.Env{GPU: g, Rank: tt.rank, NRanks: tt.nranks, SMs: 132, In: fakeBuffers(tt.nranks, 1<<40), Out: fakeBuffers(tt.nranks, 2<<40)}
		inst := newRootedInstance(t, tt.coll, env)
		dt := collectivestest.MustType(t, tt.dtype)
		c := collectivestest.MustLookup(t, tt.coll).Counts(int64(tt.bytes), dt, tt.nranks)
		elt := uint64(dt.Size)
		h := &harness.Harness{Env: &collectives.Env{Rank: tt.rank, NRanks: tt.nranks, OutBytes: 4 << 30}}
		l := h.At(&collectives.LaunchArgs{Type: dt, Op: collectives.OpMax, Root: tt.root, Count: c.Send, SendBytes: uint64(c.Send) * elt,
			RecvBytes: uint64(c.Recv) * elt, InPlace: tt.inPlace}, 1)
		if err := inst.Launch(l, 0); err != nil {
			t.Fatal(err)
		}
		chans, in := uint64(0x1000), env.In.Ptrs[tt.rank]
		if tt.inPlace {
			chans, in = 0x2000, env.Out.Ptrs[tt.rank]
		}
		shift := l.Shift
		want := []uint64{chans, uint64(in) + shift, uint64(env.Out.Ptrs[tt.rank]) + shift, shift, tt.size,
			uint64(tt.root), uint64(tt.rank), uint64(tt.nranks), 0x3000}
		if len(g.args) != len(want) {
			t.Fatalf("%+v: %d arguments, want %d", tt, len(g.args), len(want))
		}
		for i := range want {
			if g.args[i] != want[i] {
				t.Errorf("%+v: argument %d = %#x, want %#x", tt, i, g.args[i], want[i])
			}
		}
		if shift == 0 || g.dim.Grid != tt.grid || g.dim.Block != 1024 {
			t.Errorf("%+v: shift %d, grid %d x %d; want a shift, grid %d x 1024", tt, shift, g.dim.Grid, g.dim.Block, tt.grid)
		}
	}
}

// TestRootedChecks: broadcast checks every rank's output against the root's pattern;
// reduce checks the root's output against the reduction from element 0, and nothing on
// the other ranks.
func TestRootedChecks(t *testing.T) {
	for _, tt := range []struct {
		coll       string
		rank, root int
		launches   int
		want       map[int]uint64 // argument index: value
	}{
		// check_pattern(buf, chunkBytes, nchunks, firstRank, seed, eltSize, wrong)
		{"broadcast", 0, 1, 1, map[int]uint64{1: 4096, 2: 1, 3: 1, 4: 9, 5: 4}},
		{"broadcast", 1, 1, 1, map[int]uint64{1: 4096, 2: 1, 3: 1, 4: 9, 5: 4}},
		{"broadcast", 2, 0, 1, map[int]uint64{1: 4096, 2: 1, 3: 0}},
		// check_<type>_<op>(buf, count, first, nranks, seed, wrong)
		{"reduce", 1, 1, 1, map[int]uint64{1: 1024, 2: 0, 3: 3, 4: 9}},
		{"reduce", 0, 1, 0, nil},
		{"reduce", 2, 0, 0, nil},
	} {
		g := &launchRecorder{}
		env := &collectives.Env{GPU: g, Rank: tt.rank, NRanks: 3, Out: fakeBuffers(3, 2<<40)}
		v := &collectives.Verifier{GPU: g, Env: env, Wrong: 0x5000, Grid: 4}
		a := &collectives.LaunchArgs{Type: collectivestest.MustType(t, "float"), Op: collectives.OpSum, Root: tt.root, Count: 1024, SendBytes: 4096, RecvBytes: 4096, Shift: 512}
		if err := collectivestest.MustLookup(t, tt.coll).Check(v, a, 9); err != nil {
			t.Fatal(err)
		}
		if g.launches != tt.launches {
			t.Fatalf("%s rank %d root %d: %d launches, want %d", tt.coll, tt.rank, tt.root, g.launches, tt.launches)
		}
		if tt.launches == 0 {
			continue
		}
		if g.args[0] != uint64(env.Out.Ptrs[tt.rank])+512 {
			t.Errorf("%s rank %d: checks %#x, want my output %#x", tt.coll, tt.rank, g.args[0], uint64(env.Out.Ptrs[tt.rank])+512)
		}
		for i, w := range tt.want {
			if g.args[i] != w {
				t.Errorf("%s rank %d root %d: argument %d = %d, want %d", tt.coll, tt.rank, tt.root, i, g.args[i], w)
			}
		}
	}
}
