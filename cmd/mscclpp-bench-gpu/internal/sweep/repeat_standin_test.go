package sweep

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/harness"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// The repeat check (--repeat-check) against stand-in all-reduces that add float32 inputs in
// float32, as a kernel does: "ordersum" in rank order on every rank and every launch
// (deterministic), "rotsum" starting at its own rank (each rank rounds differently), and
// "driftsum" starting at a rank that moves with each launch (ranks agree, launches do not).
// With three or more ranks and the check's mixed-magnitude inputs the order changes the
// result, so the check must pass the first and name where the others differ.

const (
	orderRank  = iota // rank order everywhere
	orderOwn          // start at my own rank
	orderDrift        // start at launch count mod nranks
)

func init() {
	for i, alg := range []struct {
		name string
		mode uint64
	}{{"ordersum", orderRank}, {"rotsum", orderOwn}, {"driftsum", orderDrift}} {
		mode := alg.mode
		collectives.Register(&collectives.Algorithm{
			Collective: "allreduce", Name: alg.name, Number: hostAlgNumber + 10 + i, Doc: "test only: float32 sums in a set order",
			MinRanks: 2, Types: []string{"float"}, AnyOffset: true,
			New: func(env *collectives.Env) (collectives.Instance, error) { return &orderInstance{env, mode}, nil },
		})
	}
}

// orderInstance launches order_allreduce_float: (count, out, mode, in[0..nranks-1]).
type orderInstance struct {
	env  *collectives.Env
	mode uint64
}

func (o *orderInstance) Launch(a *collectives.LaunchArgs, s device.Stream) error {
	k, err := o.env.GPU.Kernel("order_allreduce_float")
	if err != nil {
		return err
	}
	args := []uint64{uint64(a.Count), uint64(o.env.OutPtr(a, o.env.Rank)), o.mode}
	for r := 0; r < o.env.NRanks; r++ {
		args = append(args, uint64(o.env.InPtr(a, r)))
	}
	return o.env.GPU.Launch(k, device.Dim{Grid: 1, Block: 1}, s, args...)
}

func (o *orderInstance) Close() error { return nil }

// orderedSum is element i's float32 sum over ins starting at input `start`.
func orderedSum(ins [][]byte, i, start int) float32 {
	n := len(ins)
	var acc float32
	for k := 0; k < n; k++ {
		b := ins[(start+k)%n]
		v := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		if k == 0 {
			acc = v
		} else {
			acc += v
		}
	}
	return acc
}

var (
	launchesMu sync.Mutex
	launches   = map[*devicetest.GPU]int{} // order kernel launches per rank (driftsum)
)

// repeatKernels returns the stand-in's repeat-check kernels (verify.cu's fill_mixed,
// repeat_compare and repeat_hash in Go) and order_allreduce_float.
func repeatKernels() map[string]devicetest.Kernel {
	ks := map[string]devicetest.Kernel{
		"order_allreduce_float": func(g *devicetest.GPU, a []uint64) error {
			count, out, mode, inPtrs := int(a[0]), device.Ptr(a[1]), a[2], a[3:]
			n := len(inPtrs)
			launchesMu.Lock()
			launch := launches[g]
			launches[g]++
			launchesMu.Unlock()
			if err := g.Space().Barrier(n); err != nil { // every input is filled
				return err
			}
			ins := make([][]byte, n)
			for r, p := range inPtrs {
				b, err := g.Space().Bytes(device.Ptr(p), uint64(4*count))
				if err != nil {
					return err
				}
				ins[r] = append([]byte(nil), b...)
			}
			if err := g.Space().Barrier(n); err != nil { // every rank has read (in place: out is an input)
				return err
			}
			start := 0
			switch mode {
			case orderOwn:
				start = g.Rank()
			case orderDrift:
				start = launch % n
			}
			b, err := g.Space().Bytes(out, uint64(4*count))
			if err != nil {
				return err
			}
			for i := 0; i < count; i++ {
				binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(orderedSum(ins, i, start)))
			}
			return nil
		},
		// (buf, count, rank, nranks, seed)
		"fill_mixed_float_sum": func(g *devicetest.GPU, a []uint64) error {
			b, err := g.Space().Bytes(device.Ptr(a[0]), 4*a[1])
			for i := uint64(0); err == nil && i < a[1]; i++ {
				v := float32(harness.MixedFloat(harness.MixedBits(i, int(a[2]), uint32(a[4])), harness.MixedFloat32Exp))
				binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
			}
			return err
		},
		// (out, saved, bytes, eltSize, iter, first)
		"repeat_compare": func(g *devicetest.GPU, a []uint64) error {
			out, err := g.Space().Bytes(device.Ptr(a[0]), a[2])
			if err != nil {
				return err
			}
			saved, err := g.Space().Bytes(device.Ptr(a[1]), a[2])
			if err != nil {
				return err
			}
			w, err := g.Space().Bytes(device.Ptr(a[5]), 8)
			if err != nil {
				return err
			}
			for i := range out {
				if out[i] != saved[i] {
					if key := harness.RepeatKey(a[4], uint64(i)/a[3]); key < binary.LittleEndian.Uint64(w) {
						binary.LittleEndian.PutUint64(w, key)
					}
					break
				}
			}
			return nil
		},
		// (buf, bytes, hash)
		"repeat_hash": func(g *devicetest.GPU, a []uint64) error {
			b, err := g.Space().Bytes(device.Ptr(a[0]), a[1])
			if err != nil {
				return err
			}
			w, err := g.Space().Bytes(device.Ptr(a[2]), 8)
			if err != nil {
				return err
			}
			h := binary.LittleEndian.Uint64(w)
			for i, v := range b {
				h += harness.RepeatHashMix(uint64(i)*256 + uint64(v))
			}
			binary.LittleEndian.PutUint64(w, h)
			return nil
		},
	}
	return ks
}

// mixedInputs are the n ranks' repeat-check inputs of count float32 elements.
func mixedInputs(n, count int) [][]byte {
	ins := make([][]byte, n)
	for r := range ins {
		ins[r] = make([]byte, 4*count)
		for i := 0; i < count; i++ {
			v := float32(harness.MixedFloat(harness.MixedBits(uint64(i), r, 0x5eed), harness.MixedFloat32Exp))
			binary.LittleEndian.PutUint32(ins[r][4*i:], math.Float32bits(v))
		}
	}
	return ins
}

func TestRepeatCheck(t *testing.T) {
	const nranks = 3
	j := newJob(t, nranks)
	// the first element where some rank's sum, started at its own input, differs from rank
	// 0's (rank order), and the lowest rank that differs there: what rotsum's report must name
	const count = 4096 / 4
	ins := mixedInputs(nranks, count)
	firstOwn, firstRank := -1, -1
	for i := 0; i < count && firstOwn < 0; i++ {
		for r := 1; r < nranks && firstOwn < 0; r++ {
			if orderedSum(ins, i, r) != orderedSum(ins, i, 0) {
				firstOwn, firstRank = i, r
			}
		}
	}
	if firstOwn < 0 {
		t.Fatal("the mixed inputs' float32 sums do not depend on the order: the check could not fail")
	}
	repeat := func(k string, graph int) cli.CollectiveOptions {
		c := config("allreduce", k, "float", 1)
		c.MinBytes, c.MaxBytes = 4096, 4096
		c.RepeatCheck, c.Graph = true, graph
		return c
	}
	tests := []struct {
		name string
		cfg  cli.CollectiveOptions
		want string // "": repeatable
	}{
		{"rank order", repeat("ordersum", 0), ""},
		{"rank order in graph mode", repeat("ordersum", 2), ""},
		{"each rank its own order", repeat("rotsum", 0),
			fmt.Sprintf("allreduce float sum 4096 bytes out of place (rotsum): rank %d: iteration 0's output differs from rank 0's at element %d", firstRank, firstOwn)},
		{"the order moves with each launch", repeat("driftsum", 0), "allreduce float sum 4096 bytes out of place (driftsum): rank 0: iteration 1's output differs from iteration 0's at element"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := run(t, j, tt.cfg)
			for r, err := range o.errs {
				if tt.want == "" && err != nil {
					t.Errorf("rank %d: %v", r, err)
				}
				if tt.want != "" && (err == nil || !strings.Contains(err.Error(), "repeat check: 2 placement(s) not repeatable; the first: "+tt.want)) {
					t.Errorf("rank %d: error %v, want one naming %q", r, err, tt.want)
				}
			}
			if o.report == nil || len(o.report.Rows) != 1 {
				t.Fatalf("no report of one row; text:\n%s", o.text)
			}
			wantCell := results.RepeatSame
			if tt.want != "" {
				wantCell = results.RepeatDiffers
			}
			if got := o.report.Rows[0].Repeat; got != wantCell {
				t.Errorf("row's repeat verdict %q, want %q", got, wantCell)
			}
			if !o.report.Header.RepeatCheck || !strings.Contains(o.text, " repeat\n") {
				t.Errorf("no repeat column in the header:\n%s", o.text)
			}
			var row string
			for _, line := range strings.Split(o.text, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "4096 ") {
					row = line
				}
			}
			if f := strings.Fields(row); len(f) != 14 || f[13] != wantCell {
				t.Errorf("row %q: want 14 columns, the last %q", row, wantCell)
			}
			if tt.want != "" && !strings.Contains(o.text, "# repeat check: "+tt.want) {
				t.Errorf("no note naming the difference in the report:\n%s", o.text)
			}
		})
	}
}

// TestRepeatCheckOtherCollectives: a collective whose ranks' outputs differ by design
// (reduce-scatter) is compared run against run only, and one that only moves bytes
// (all-gather) is repeatable across runs and ranks.
func TestRepeatCheckOtherCollectives(t *testing.T) {
	j := newJob(t, 3)
	for _, c := range []cli.CollectiveOptions{config("reducescatter", "hostrs", "float", 1), config("allgather", "hostgather", "float", 1)} {
		c.RepeatCheck = true
		o := run(t, j, c)
		for r, err := range o.errs {
			if err != nil {
				t.Errorf("%s rank %d: %v", c.Collective, r, err)
			}
		}
		if o.report == nil || len(o.report.Rows) == 0 {
			t.Fatalf("%s: no rows:\n%s", c.Collective, o.text)
		}
		for _, row := range o.report.Rows {
			if row.Repeat != results.RepeatSame {
				t.Errorf("%s %d B: repeat %q, want %q", c.Collective, row.Size, row.Repeat, results.RepeatSame)
			}
		}
	}
}
