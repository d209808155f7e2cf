package all

import (
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
)

func TestCheckSweep(t *testing.T) {
	ll8, err := collectives.Find("allreduce", "ll8")
	if err != nil {
		t.Fatal(err)
	}
	everyType := make([]string, len(collectives.Datatypes))
	for i, dt := range collectives.Datatypes {
		everyType[i] = dt.Name
	}
	small := []int64{8, 1024, 64 << 10}
	tests := []struct {
		name       string
		collective string
		k          string
		sizes      []int64
		dtypes     []string
		nranks     int
		want       string // "" means accepted
	}{
		{"ll8 on its types", "allreduce", "ll8", small, ll8.Types, 0, ""},
		{"ll8 on every type", "allreduce", "ll8", small, everyType, 0, "allreduce ll8 does not support type int64 (supports " + strings.Join(ll8.Types, ", ") + ")"},
		{"ll8 by number", "allreduce", "0", small, []string{"double"}, 0, "does not support type double"},
		{"ll8 above its sizes", "allreduce", "ll8", []int64{8, 2 << 30}, []string{"float"}, 0, "allreduce ll8 handles 0 to 1048576 bytes, not 2147483648"},
		{"ll8 on one rank", "allreduce", "ll8", small, []string{"float"}, 1, "allreduce ll8 does not run on 1 ranks (it runs on 2 to any number of ranks)"},
		{"ll8 ranks unknown", "allreduce", "ll8", small, []string{"float"}, 0, ""},
		{"local on two ranks", "allgather", "local", small, []string{"float"}, 2, "does not run on 2 ranks (it runs on 1 to 1 ranks)"},
		// reduce hostput's largest message depends on the rank count (its slots hold every
		// peer's whole message): unknown ranks get its largest on any count
		{"reduce hostput ranks unknown", "reduce", "hostput", []int64{8, 64 << 20}, []string{"float"}, 0, ""},
		{"reduce hostput on 2 ranks", "reduce", "hostput", []int64{8, 64 << 20}, []string{"float"}, 2, ""},
		{"reduce hostput on 4 ranks", "reduce", "hostput", []int64{8, 32 << 20}, []string{"float"}, 4, "reduce hostput handles 0 to 4194304 bytes on 4 ranks, not 33554432"},
		{"reduce hostput above its sizes", "reduce", "hostput", []int64{8, 128 << 20}, []string{"float"}, 0, "reduce hostput handles 0 to 67108864 bytes, not 134217728"},
		{"auto everywhere", "allreduce", "auto", []int64{0, 8, 1 << 20, 64 << 30}, everyType, 2, ""},
		{"auto on one rank", "allgather", "auto", small, everyType, 1, ""},
		{"all is never refused", "allreduce", "all", []int64{8, 2 << 30}, everyType, 2, ""},
		{"unknown algorithm", "allreduce", "nope", small, []string{"float"}, 0, "unknown allreduce algorithm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := collectives.CheckSweep(tt.collective, tt.k, tt.sizes, tt.dtypes, tt.nranks)
			if tt.want == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestCheckSweepAutoWithoutCandidate: auto is refused at a size and type no registered
// algorithm takes, as Select would refuse it mid-run.
func TestCheckSweepAutoWithoutCandidate(t *testing.T) {
	saved := collectives.SetAlgorithms("testonly", []*collectives.Algorithm{{Collective: "testonly", Name: "small", MaxBytes: 1024, MinRanks: 2, Types: []string{"float"}}})
	t.Cleanup(func() { collectives.SetAlgorithms("testonly", saved) })
	for _, tt := range []struct {
		sizes  []int64
		dtype  string
		nranks int
		want   string
	}{
		{[]int64{8, 1024}, "float", 2, ""},
		{[]int64{8, 4096}, "float", 0, "no testonly algorithm supports 4096 bytes of float"},
		{[]int64{8}, "half", 0, "no testonly algorithm supports 8 bytes of half"},
		{[]int64{8}, "float", 1, "no testonly algorithm supports 8 bytes of float on 1 ranks"},
	} {
		err := collectives.CheckSweep("testonly", "auto", tt.sizes, []string{tt.dtype}, tt.nranks)
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%v %s on %d ranks: %v, want %q", tt.sizes, tt.dtype, tt.nranks, err, tt.want)
		}
		for _, size := range tt.sizes {
			if _, serr := collectives.Select("testonly", "auto", size, max(tt.nranks, 2), tt.dtype); tt.want == "" && serr != nil {
				t.Errorf("CheckSweep accepted what Select refuses: %v", serr)
			}
		}
	}
}
