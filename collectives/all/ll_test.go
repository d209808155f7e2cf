package all

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/alltoall"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/broadcast"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/collectivestest"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/reduce"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/reducescatter"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/sendrecv"
	"github.com/mscclpp-bench/mscclpp-bench/harness"
)

// llCollectives are the collectives with an LL16 algorithm of their own (ll.go), the
// algorithm -k auto picks above its range (up to 32 MiB at least), and what -k all lists
// after ll16 at 1 KiB.
var llCollectives = []struct{ coll, above, all string }{
	{"alltoall", "blockput", "blockput,port,portput"}, {"sendrecv", "put", "put,port,portput"},
	{"broadcast", "read", "read,port,portput"}, {"reduce", "read", "read,portput"}, {"reducescatter", "read", "read,portput"},
}

// TestLLRegistry: each collective's ll16 is algorithm 0, found by name and number, on two
// or more ranks, for every type (reduce and reducescatter: every type with every op, as
// TestKernelTypes checks their kernel families), up to its MaxBytes.
func TestLLRegistry(t *testing.T) {
	maxBytes := map[string]int64{"alltoall": 32 << 20, "sendrecv": 8 << 20, "broadcast": 2 << 20, "reduce": 2 << 20, "reducescatter": 32 << 20}
	for _, c := range llCollectives {
		for _, k := range []string{"ll16", "0"} {
			a, err := collectives.Find(c.coll, k)
			if err != nil || a.Name != "ll16" || a.Number != 0 {
				t.Fatalf("Find(%s, %s) = %v, %v; want ll16 (#0)", c.coll, k, a, err)
			}
		}
		a, _ := collectives.Find(c.coll, "ll16")
		if a.MinRanks != 2 || a.MaxRanks != 0 || a.Types != nil || a.MaxBytes != maxBytes[c.coll] || a.New == nil || a.Doc == "" {
			t.Errorf("%s ll16: ranks %d..%d, types %v, MaxBytes %d, New set %v, Doc %q", c.coll, a.MinRanks, a.MaxRanks, a.Types, a.MaxBytes, a.New != nil, a.Doc)
		}
		for _, dt := range collectives.Datatypes {
			if err := a.Supports(1024, 3, dt.Name); err != nil {
				t.Errorf("%s ll16: %v", c.coll, err)
			}
		}
		if err := a.Supports(1024, 1, "float"); err == nil {
			t.Errorf("%s ll16 runs on one rank", c.coll)
		}
		_, err := collectives.Select(c.coll, "ll16", maxBytes[c.coll]+1, 2, "float")
		if err == nil || !strings.Contains(err.Error(), "handles 0 to") {
			t.Errorf("Select(%s, ll16, MaxBytes+1) error = %v, want the size range", c.coll, err)
		}
	}
}

// TestLLSelectAuto: -k auto picks ll16 from 0 bytes up to its threshold on any number of
// ranks above one, the collective's other algorithm above it, and the fallback on one rank.
func TestLLSelectAuto(t *testing.T) {
	autoMax := map[string]int64{"alltoall": 1 << 20, "sendrecv": 512 << 10, "broadcast": 1 << 20, "reduce": 1 << 20, "reducescatter": 2 << 20}
	for _, c := range llCollectives {
		top := autoMax[c.coll]
		for _, tt := range []struct {
			size   int64
			nranks int
			dtype  string
			want   string
		}{
			{0, 2, "float", "ll16"},
			{8, 2, "float", "ll16"},
			{32, 3, "int8", "ll16"},
			{4096, 8, "double", "ll16"},
			{top, 2, "bfloat16", "ll16"},
			{top + 1, 2, "bfloat16", c.above},
			{32 << 20, 8, "float", c.above},
			{8, 1, "float", "local"},
		} {
			algs, err := collectives.Select(c.coll, "auto", tt.size, tt.nranks, tt.dtype)
			if err != nil || len(algs) != 1 || algs[0].Name != tt.want {
				t.Errorf("Select(%s, auto, %d, %d ranks, %s) = %v, %v; want %s", c.coll, tt.size, tt.nranks, tt.dtype, AlgNames(algs), err, tt.want)
			}
		}
		algs, err := collectives.Select(c.coll, "all", 1024, 2, "half")
		if got := strings.Join(AlgNames(algs), ","); err != nil || got != "ll16,"+c.all {
			t.Errorf("Select(%s, all, 1024) = %s, %v; want ll16,%s", c.coll, got, err, c.all)
		}
	}
}

// TestLLScratchSize: a slot holds the packets of any size up to its maximum (16 bytes per
// 8 bytes of data, a partial last packet included), slots stay 256-byte aligned, and a
// scratch that takes credits has a row of llCreditSlots words per rank before its slots.
func TestLLScratchSize(t *testing.T) {
	for _, max := range []uint64{0, 1, 7, 8, 9, 16, 1000, 33337, 1 << 20, 32 << 20} {
		slot := algo.LLSlotBytes(max)
		for _, d := range []uint64{0, 1, max / 2, max - min(max, 1), max} {
			if packets := (d + 7) / 8 * 16; packets > slot {
				t.Errorf("llSlotBytes(%d) = %d: %d bytes need %d", max, slot, d, packets)
			}
		}
		if slot%256 != 0 || slot > 2*max+256+16 {
			t.Errorf("llSlotBytes(%d) = %d, want a multiple of 256 near twice the data", max, slot)
		}
	}
	for _, tt := range []struct {
		maxData, slots uint64
		nranks         int
		credits        bool
		want           uint64
	}{
		{1000, 4, 2, false, 4 * 2048},
		{1000, 4, 2, true, 2*512 + 4*2048},
		{1 << 20, 16, 8, true, 8*512 + 16*(2<<20+256)},
		{64, 2, 3, true, 3*512 + 2*256},
	} {
		if got := algo.LLScratchBytes(tt.maxData, tt.slots, tt.nranks, tt.credits); got != tt.want {
			t.Errorf("llScratchBytes(%d, %d, %d, %v) = %d, want %d", tt.maxData, tt.slots, tt.nranks, tt.credits, got, tt.want)
		}
	}
	if algo.LLCreditBytes(1) != 512 || algo.LLCreditBytes(65) != 65*512 {
		t.Errorf("llCreditBytes(1), (65) = %d, %d; want 512, %d", algo.LLCreditBytes(1), algo.LLCreditBytes(65), 65*512)
	}
}

// newLLInstance sets up a collective's ll16 algorithm on a stand-in GPU with made-up
// scratch and channels.
func newLLInstance(t *testing.T, coll string, env *collectives.Env) collectives.Instance {
	t.Helper()
	b, s := &algo.Base{Env: env, State: 0x3000}, algo.LLScratch{Chans: 0x1000, Scratch: 0x4000, SlotBytes: 0x500}
	var err error
	var inst collectives.Instance
	switch coll {
	case "alltoall":
		a := &alltoall.AlltoallLL{Base: b, LLScratch: s}
		a.K, err = alltoall.AlltoallLL16.Load(env.GPU)
		inst = a
	case "sendrecv":
		a := &sendrecv.SendRecvLL{Base: b, LLScratch: s}
		a.K, err = sendrecv.SendRecvLL16.Load(env.GPU)
		inst = a
	case "broadcast":
		a := &broadcast.BroadcastLL{Base: b, LLScratch: s}
		a.K, err = broadcast.BroadcastLL16.Load(env.GPU)
		inst = a
	case "reduce":
		a := &reduce.ReduceLL{Base: b, LLScratch: s}
		a.K, err = algo.LoadTyped(env.GPU, reduce.ReduceLL16, nil)
		inst = a
	case "reducescatter":
		a := &reducescatter.ReduceScatterLL{Base: b, LLScratch: s}
		a.K, err = algo.LoadTyped(env.GPU, reducescatter.ReduceScatterLL16, nil)
		inst = a
	default:
		t.Fatalf("no ll16 for %s", coll)
	}
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// TestLLLaunch: each kernel gets the peers' scratch channels, my scratch and slot size, my
// input and output of the placement (in place: both in the output buffer, reduce-scatter's
// output at my block), its size argument (alltoall: the chunk per rank; sendrecv and
// broadcast: bytes; reduce: elements; reduce-scatter: elements of my block), the root where
// there is one, and a grid of 512 threads per 512 packets sent to each peer, within the SMs
// (broadcast and reduce: within llCreditSlots blocks too).
func TestLLLaunch(t *testing.T) {
	for _, tt := range []struct {
		coll               string
		rank, nranks, root int
		inPlace            bool
		dtype              string
		size               int64  // the collective's size (nccl-tests' -b)
		arg                uint64 // the kernel's size argument
		outShift           uint64 // in place: my output's offset from my input
		grid               int
	}{
		{"alltoall", 1, 2, 0, false, "float", 32, 16, 0, 1},
		{"alltoall", 0, 2, 0, true, "float", 1 << 20, 512 << 10, 0, 128},
		{"alltoall", 2, 3, 0, false, "int8", 100000, 33328, 0, 9},
		{"sendrecv", 1, 2, 0, false, "float", 8, 8, 0, 1},
		{"sendrecv", 2, 3, 0, true, "int8", 100001, 100001, 0, 25},
		{"sendrecv", 0, 8, 0, false, "double", 8 << 20, 8 << 20, 0, 132},
		{"broadcast", 0, 2, 0, false, "int8", 7, 7, 0, 1},
		{"broadcast", 2, 3, 1, true, "float", 256 << 10, 256 << 10, 0, 64},
		{"broadcast", 0, 2, 1, false, "int8", 1 << 20, 1 << 20, 0, 128},
		{"reduce", 1, 2, 0, false, "half", 6, 3, 0, 1},
		{"reduce", 0, 3, 0, true, "double", 100000, 12500, 0, 25},
		{"reduce", 7, 8, 7, false, "bfloat16", 2 << 20, 1 << 20, 0, 128},
		{"reducescatter", 1, 2, 0, false, "float", 64, 8, 0, 1},
		{"reducescatter", 1, 2, 0, true, "float", 1 << 20, 128 << 10, 512 << 10, 128},
		{"reducescatter", 2, 3, 0, true, "int8", 1000, 320, 640, 1},
	} {
		g := &launchRecorder{}
		env := &collectives.Env{GPU: g, Rank: tt.rank, NRanks: tt.nranks, SMs: 132, In: fakeBuffers(tt.nranks, 1<<40), Out: fakeBuffers(tt.nranks, 2<<40)}
		inst := newLLInstance(t, tt.coll, env)
		dt := collectivestest.MustType(t, tt.dtype)
		c := collectivestest.MustLookup(t, tt.coll).Counts(tt.size, dt, tt.nranks)
		elt := uint64(dt.Size)
		h := &harness.Harness{Env: &collectives.Env{Rank: tt.rank, NRanks: tt.nranks, OutBytes: 4 << 30}}
		l := h.At(&collectives.LaunchArgs{Type: dt, Op: collectives.OpProd, Root: tt.root, Count: c.Send, SendBytes: uint64(c.Send) * elt,
			RecvBytes: uint64(c.Recv) * elt, InPlace: tt.inPlace,
			SendInPlace: uint64(c.SendInPlace) * elt, RecvInPlace: uint64(c.RecvInPlace) * elt}, 1)
		if err := inst.Launch(l, 0); err != nil {
			t.Fatal(err)
		}
		in := uint64(env.In.Ptrs[tt.rank]) + l.Shift
		out := uint64(env.Out.Ptrs[tt.rank]) + l.Shift
		if tt.inPlace {
			in = out
			out += tt.outShift
		}
		want := []uint64{0x1000, 0x4000, 0x500, in, out, tt.arg}
		if collectivestest.MustLookup(t, tt.coll).HasRoot() {
			want = append(want, uint64(tt.root))
		}
		want = append(want, uint64(tt.rank), uint64(tt.nranks), 0x3000)
		if len(g.args) != len(want) {
			t.Fatalf("%+v: %d arguments, want %d", tt, len(g.args), len(want))
		}
		for i := range want {
			if g.args[i] != want[i] {
				t.Errorf("%+v: argument %d = %#x, want %#x", tt, i, g.args[i], want[i])
			}
		}
		if l.Shift == 0 || g.dim.Grid != tt.grid || g.dim.Block != 512 {
			t.Errorf("%+v: shift %d, grid %d x %d; want a shift, grid %d x 512", tt, l.Shift, g.dim.Grid, g.dim.Block, tt.grid)
		}
	}
}

// TestLLDeviceConstants: llSlots and llCreditSlots are ll_device.cuh's kLLSlots and
// kLLCreditSlots, and the largest grid llCreditGrid gives, on a GPU of more SMs, is
// llCreditSlots.
func TestLLDeviceConstants(t *testing.T) {
	src, err := os.ReadFile("../../kernels/include/mscclpp/ll_device.cuh")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"kLLSlots": algo.LLSlots, "kLLCreditSlots": algo.LLCreditSlots} {
		m := regexp.MustCompile(`constexpr uint32_t ` + name + ` = (\d+);`).FindSubmatch(src)
		if m == nil {
			t.Fatalf("ll_device.cuh declares no %s", name)
		}
		if got, _ := strconv.Atoi(string(m[1])); got != want {
			t.Errorf("ll_device.cuh: %s = %d, Go has %d", name, got, want)
		}
	}
	b := &algo.Base{Env: &collectives.Env{SMs: 1000}}
	if g := b.LLCreditGrid(1 << 30).Grid; g != algo.LLCreditSlots {
		t.Errorf("llCreditGrid(1 GiB) on 1000 SMs = %d blocks, want %d", g, algo.LLCreditSlots)
	}
	if g := b.LLGrid(1 << 30).Grid; g != 1000 {
		t.Errorf("llGrid(1 GiB) on 1000 SMs = %d blocks, want 1000", g)
	}
}
