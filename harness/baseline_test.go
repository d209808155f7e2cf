package harness

import (
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/collectivestest"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// TestCountsAndBandwidthAsBaselines replays nccl-tests' own runs of gather, scatter,
// alltoallv and hypercube (2 ranks, float, -b 8 -e 2G -f 4; results/testdata): for every
// requested size, Counts gives the row's size and count columns, the root column is -r's
// (0) for the rooted ones and -1 for the others, the redop column is what nccl-tests
// prints, and Bandwidth turns the row's times into its algbw and busbw.
func TestCountsAndBandwidthAsBaselines(t *testing.T) {
	float := collectivestest.MustType(t, "float")
	for _, name := range []string{"gather", "scatter", "alltoallv", "hypercube"} {
		t.Run(name, func(t *testing.T) {
			path := fmt.Sprintf("../results/testdata/h200x2-nccl2.28.3-mpi-G0_%s.json", name)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := results.ReadJSON(f)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			c := collectivestest.MustLookup(t, name)
			if len(r.Rows) != 15 {
				t.Fatalf("%d rows, want 15", len(r.Rows))
			}
			wantRoot, wantOp := -1, "none"
			if c.HasRoot() {
				wantRoot = 0
			}
			if name == "hypercube" {
				wantOp = ""
			}
			size := int64(8)
			for _, row := range r.Rows {
				counts := c.Counts(size, float, 2)
				if got := counts.SizeBytes(float.Size); got != row.Size || counts.Param != row.Count {
					t.Errorf("requested %d B: size %d, count %d; nccl-tests printed %d, %d", size, got, counts.Param, row.Size, row.Count)
				}
				if row.Root != wantRoot || row.Op != wantOp || collectives.OpLabel(c, collectives.OpNone) != wantOp {
					t.Errorf("requested %d B: nccl-tests printed root %d, redop %q; want %d, %q (ours %q)", size, row.Root, row.Op, wantRoot, wantOp, collectives.OpLabel(c, collectives.OpNone))
				}
				for _, p := range []*results.Placement{row.OutOfPlace, row.InPlace} {
					alg, bus := c.Bandwidth(counts, float.Size, p.TimeUs/1e6, 2)
					// the file keeps 6 decimals of every figure
					if math.Abs(alg-p.AlgBw) > 1e-6+1e-9*alg || math.Abs(bus-p.BusBw) > 1e-6+1e-9*bus {
						t.Errorf("requested %d B, %.6f us: Bandwidth = %.6f, %.6f; nccl-tests %.6f, %.6f", size, p.TimeUs, alg, bus, p.AlgBw, p.BusBw)
					}
				}
				size *= 4
			}
		})
	}
}
