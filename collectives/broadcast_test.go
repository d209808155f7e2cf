package collectives

import (
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
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
	for _, name := range []string{"broadcast"} {
		c := mustLookup(t, name)
		for _, tt := range tests {
			dt := mustType(t, tt.dtype)
			got := c.Counts(tt.size, dt, tt.nranks)
			want := Counts{Send: tt.count, Recv: tt.count, Param: tt.count}
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
	for _, name := range []string{"broadcast"} {
		for _, n := range []int{1, 2, 8} {
			alg, bus := mustLookup(t, name).Bandwidth(Counts{Send: 1024, Recv: 1024, Param: 1024}, 4, 1e-3, n)
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
	}{{"broadcast", "broadcast_perf", false}} {
		c := mustLookup(t, tt.name)
		if !c.HasRoot() || c.HasOp() != tt.hasOp || c.TestName() != tt.testName {
			t.Errorf("%s: HasRoot %v, HasOp %v, TestName %s", tt.name, c.HasRoot(), c.HasOp(), c.TestName())
		}
		for _, r := range []struct {
			nranks int
			want   string
		}{{1, "local"}, {2, "read"}, {8, "read"}} {
			algs, err := Select(tt.name, "auto", 1<<20, r.nranks, "half")
			if err != nil || len(algs) != 1 || algs[0].Name != r.want {
				t.Errorf("Select(%s, auto, %d ranks) = %v, %v; want %s", tt.name, r.nranks, algs, err, r.want)
			}
		}
	}
}

// launchRecorder is a device.GPU stand-in that keeps the last launch's grid and arguments.
type launchRecorder struct {
	device.GPU
	dim  device.Dim
	args []uint64
}

func (g *launchRecorder) Kernel(name string) (device.Kernel, error) { return 1, nil }

func (g *launchRecorder) Launch(k device.Kernel, d device.Dim, s device.Stream, args ...uint64) error {
	g.dim, g.args = d, append([]uint64(nil), args...)
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

// TestBroadcastReadLaunch: the kernel gets my input and output, the root's input offset
// (the same as mine: in place too, broadcast's in-place offsets are 0), the channels that
// reach the inputs of the placement, the root from the launch, and a grid within the SMs.
func TestBroadcastReadLaunch(t *testing.T) {
	const inChans, outChans = device.Ptr(0x1000), device.Ptr(0x2000)
	for _, tt := range []struct {
		rank, nranks, root int
		inPlace            bool
		bytes              uint64
		grid               int
	}{
		{1, 2, 0, false, 8, 1},
		{0, 2, 0, true, 1 << 20, 64},
		{2, 3, 1, true, 100000, 7},
		{5, 8, 7, false, 1 << 30, 132},
	} {
		g := &launchRecorder{}
		env := &Env{GPU: g, Rank: tt.rank, NRanks: tt.nranks, SMs: 132, In: fakeBuffers(tt.nranks, 1<<40), Out: fakeBuffers(tt.nranks, 2<<40)}
		k, err := params.BroadcastRead.Load(g)
		if err != nil {
			t.Fatal(err)
		}
		a := &broadcastRead{base: &base{env: env, state: 0x3000}, peerBuffers: peerBuffers{inChans, outChans}, k: k}
		c := mustLookup(t, "broadcast").Counts(int64(tt.bytes), mustType(t, "int8"), tt.nranks)
		h := &Harness{env: &Env{Rank: tt.rank, NRanks: tt.nranks, OutBytes: 4 << 30}}
		l := h.at(&LaunchArgs{Type: mustType(t, "int8"), Root: tt.root, Count: c.Send, SendBytes: uint64(c.Send),
			RecvBytes: uint64(c.Recv), InPlace: tt.inPlace}, 1)
		if err := a.Launch(l, 0); err != nil {
			t.Fatal(err)
		}
		chans, in := inChans, env.In.Ptrs[tt.rank]
		if tt.inPlace {
			chans, in = outChans, env.Out.Ptrs[tt.rank]
		}
		shift := l.Shift
		want := []uint64{uint64(chans), uint64(in) + shift, uint64(env.Out.Ptrs[tt.rank]) + shift, shift, tt.bytes,
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
