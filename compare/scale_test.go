package compare

import (
	"fmt"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// TestCompareManyRows compares files of 100,000 rows each, with and without algorithm
// names in the baseline. Matching row by row against every other row took over 300 s at
// this size; matching through maps takes well under a second, so the bound below is
// generous for a loaded machine and still fails a quadratic match.
func TestCompareManyRows(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	const n = 100_000
	types := []string{"float", "half", "int32", "double"}
	rows := func(alg string, scale float64) []results.Row {
		out := make([]results.Row, n)
		for i := range out {
			size := int64(i/len(types)+1) * 64
			p := &results.Placement{TimeUs: 10 * scale, AlgBw: 1, BusBw: scale, Wrong: 0}
			out[i] = results.Row{Size: size, Count: size / 4, Type: types[i%len(types)], Op: "sum", Root: -1,
				OutOfPlace: p, InPlace: p, Algorithm: alg}
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		baseAlg string
	}{{"nccl-tests baseline", ""}, {"named algorithms", "rsag"}} {
		t.Run(tt.name, func(t *testing.T) {
			base, cur := report(rows(tt.baseAlg, 1)...), report(rows("rsag", 1.01)...)
			var res *Result
			var err error
			start := time.Now()
			bounded.Run(t, 30*time.Second, fmt.Sprintf("comparing %d against %d rows", n, n), func() {
				res, err = Compare(base, cur, DefaultOptions())
			})
			t.Logf("%d rows compared in %v", 2*n, time.Since(start))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != 2*n || res.Counts.OK != 2*n {
				t.Errorf("%d compared rows, %d ok; want %d of each", len(res.Rows), res.Counts.OK, 2*n)
			}
		})
	}
}
