package collectives

import (
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap/bootstraptest"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// traceInstance records an L for each launch into trace.
type traceInstance struct{ trace *[]byte }

func (i traceInstance) Launch(*LaunchArgs, device.Stream) error {
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
		opts := Options{Sizes: []int64{64}, Iters: tt.iters, AggIters: tt.agg, Blocking: tt.z, Datatypes: []string{"float"},
			Ops: []string{"sum"}, Barrier: func() error {
				trace = append(trace, 'B')
				time.Sleep(pause)
				return nil
			}}
		h, err := NewHarness(mustLookup(t, "allreduce"), g, m, s, opts, quietReporter{})
		if err != nil {
			t.Fatal(err)
		}
		dt, _ := LookupDatatype("float")
		base := &LaunchArgs{Type: dt, Op: OpSum, Count: 16, Param: 16, SendBytes: 64, RecvBytes: 64}
		elapsed, cpu, _, err := h.timedLoop(traceInstance{&trace}, base)
		if err != nil {
			t.Fatal(err)
		}
		if string(trace) != tt.want {
			t.Errorf("-z %d -n %d -m %d: %s; want %s", tt.z, tt.iters, tt.agg, trace, tt.want)
		}
		barriers := time.Duration(len(tt.want)-tt.iters*tt.agg) * pause
		switch {
		case tt.z == 3 && (elapsed >= pause || cpu >= pause):
			t.Errorf("-z 3 -n %d -m %d: time %v, cputime %v; want the %v of barriers left out", tt.iters, tt.agg, elapsed, cpu, barriers)
		case tt.z == 1 && elapsed < barriers:
			t.Errorf("-z 1 -n %d -m %d: time %v; want the %v of barriers in", tt.iters, tt.agg, elapsed, barriers)
		}
		h.Close()
	}
}
