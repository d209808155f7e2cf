package harness

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap/bootstraptest"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/collectivestest"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// traceInstance records an L for each launch into trace.
type traceInstance struct{ trace *[]byte }

func (i traceInstance) Launch(*collectives.LaunchArgs, device.Stream) error {
	*i.trace = append(*i.trace, 'L')
	return nil
}

func (traceInstance) Close() error { return nil }

// quietReporter drops what a harness reports.
type quietReporter struct{}

func (quietReporter) Algorithm(string)    {}
func (quietReporter) Note(string, ...any) {}
func (quietReporter) Row(results.Row)     {}

// TestTimedLoopBlockingModes: the order of launches (L) and blocking barriers (B) in one
// timed loop of -n iterations of -m launches, for each -z: none with 0 and 2, one after
// every launch with 1, one after every outer iteration with 3; and -z 3's time leaves its
// barriers out while -z 1's includes them.
func TestTimedLoopBlockingModes(t *testing.T) {
	g := devicetest.NewSpace(nil).NewGPU(0)
	boots := bootstraptest.Loopback(t, 1, 10*time.Second)
	m, err := channels.NewMesh(g, boots[0], channels.MeshOptions{Timeout: 10 * time.Second, Hostname: "node"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	s, err := g.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	const pause = 100 * time.Millisecond // each barrier's
	tests := []struct {
		z, iters, agg int
		want          string
	}{
		{0, 2, 3, "LLLLLL"},
		{1, 2, 3, "LBLBLBLBLBLB"},
		{2, 2, 3, "LLLLLL"},
		{3, 2, 3, "LLLBLLLB"},
		{3, 4, 1, "LBLBLBLB"},
		{3, 1, 2, "LLB"},
		{1, 3, 1, "LBLBLB"},
	}
	for _, tt := range tests {
		var trace []byte
		var inBarriers time.Duration
		opts := Options{Sizes: []int64{64}, Iters: tt.iters, AggIters: tt.agg, Blocking: tt.z, Datatypes: []string{"float"},
			Ops: []string{"sum"}, Barrier: func() error {
				trace = append(trace, 'B')
				t0 := time.Now()
				time.Sleep(pause)
				inBarriers += time.Since(t0)
				return nil
			}}
		h, err := NewHarness(collectivestest.MustLookup(t, "allreduce"), g, m, s, opts, quietReporter{})
		if err != nil {
			t.Fatal(err)
		}
		dt, _ := collectives.LookupDatatype("float")
		base := &collectives.LaunchArgs{Type: dt, Op: collectives.OpSum, Count: 16, Param: 16, SendBytes: 64, RecvBytes: 64}
		start := time.Now()
		elapsed, cpu, _, err := h.timedLoop(traceInstance{&trace}, base)
		whole := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if string(trace) != tt.want {
			t.Errorf("-z %d -n %d -m %d: %s; want %s", tt.z, tt.iters, tt.agg, trace, tt.want)
		}
		barriers := time.Duration(len(tt.want)-tt.iters*tt.agg) * pause
		switch {
		// -z 3: what is left of the whole loop without its barriers, however slow the
		// machine (a time that counted a barrier would exceed it by at least the pause).
		case tt.z == 3 && (elapsed > whole-inBarriers || cpu > whole-inBarriers):
			t.Errorf("-z 3 -n %d -m %d: time %v, cputime %v; want the %v of barriers left out", tt.iters, tt.agg, elapsed, cpu, barriers)
		case tt.z == 1 && elapsed < barriers:
			t.Errorf("-z 1 -n %d -m %d: time %v; want the %v of barriers in", tt.iters, tt.agg, elapsed, barriers)
		}
		h.Close()
	}
}

// wrongCounter is a collective whose check finds wrong(rank, k) wrong elements on each
// rank at its k-th check (from 0), with no kernel: the harness's own sum is what is tested.
type wrongCounter struct {
	collectives.Collective
	wrong  func(rank, k int) uint64
	checks []int // per rank
}

func (wrongCounter) InitData(*collectives.Verifier, *collectives.LaunchArgs, uint32) error {
	return nil
}

func (w wrongCounter) Check(v *collectives.Verifier, _ *collectives.LaunchArgs, _ uint32) error {
	r := v.Env.Rank
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], w.wrong(r, w.checks[r]))
	w.checks[r]++
	return v.GPU.CopyToDevice(v.Wrong, b[:])
}

// TestVerifySumsWrongOverRanks: a placement's #wrong is the sum of every rank's wrong
// elements, on 3 ranks with different counts (not rank 0's, nor the largest, nor the
// last); -c N stops at the first check that finds any, and counts 0 when none does.
func TestVerifySumsWrongOverRanks(t *testing.T) {
	const n = 3
	space := devicetest.NewSpace(nil)
	boots := bootstraptest.Loopback(t, n, 10*time.Second)
	meshes := make([]*channels.Mesh, n)
	gpus := make([]*devicetest.GPU, n)
	for r, err := range bounded.Ranks(t, n, 30*time.Second, func(r int) error {
		gpus[r] = space.NewGPU(r)
		var err error
		meshes[r], err = channels.NewMesh(gpus[r], boots[r], channels.MeshOptions{Mode: cudaipc.Mode, Timeout: 10 * time.Second, Hostname: "node"})
		return err
	}) {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	t.Cleanup(func() {
		for _, m := range meshes {
			m.Close()
		}
	})
	tests := []struct {
		name  string
		check int
		wrong func(rank, k int) uint64
		want  int64
		calls int // checks made on each rank
	}{
		{"every rank wrong", 1, func(r, _ int) uint64 { return []uint64{1, 20, 300}[r] }, 321, 1},
		{"rank 0 only", 1, func(r, _ int) uint64 { return []uint64{7, 0, 0}[r] }, 7, 1},
		{"the last rank only", 1, func(r, _ int) uint64 { return []uint64{0, 0, 40}[r] }, 40, 1},
		{"3 checks, wrong from the second", 3, func(r, k int) uint64 { return uint64(k * (r + 1)) }, 6, 2},
		{"3 checks, wrong only at the last", 3, func(r, k int) uint64 { return uint64(k / 2 * r) }, 2 + 1, 3},
		{"3 checks, all right", 3, func(int, int) uint64 { return 0 }, 0, 3},
	}
	for _, tt := range tests {
		got := make([]int64, n)
		checks := make([]int, n)
		for r, err := range bounded.Ranks(t, n, 30*time.Second, func(r int) error {
			s, err := gpus[r].NewStream()
			if err != nil {
				return err
			}
			opts := Options{Sizes: []int64{64}, Iters: 1, Check: tt.check, Datatypes: []string{"float"}, Ops: []string{"sum"}}
			h, err := NewHarness(wrongCounter{collectivestest.MustLookup(t, "allreduce"), tt.wrong, checks}, gpus[r], meshes[r], s, opts, quietReporter{})
			if err != nil {
				return err
			}
			defer h.Close()
			dt, _ := collectives.LookupDatatype("float")
			got[r], err = h.verify(traceInstance{new([]byte)}, &collectives.LaunchArgs{Type: dt, Op: collectives.OpSum, Count: 16, Param: 16, SendBytes: 64, RecvBytes: 64})
			return err
		}) {
			if err != nil {
				t.Fatalf("%s: rank %d: %v", tt.name, r, err)
			}
		}
		for r, g := range got {
			if g != tt.want || checks[r] != tt.calls {
				t.Errorf("%s: rank %d counts %d wrong after %d checks; want %d, the sum over ranks, after %d", tt.name, r, g, checks[r], tt.want, tt.calls)
			}
		}
	}
}
