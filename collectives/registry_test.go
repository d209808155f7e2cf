package collectives

import (
	"strings"
	"testing"
)

// TestLargestByRankCount: an algorithm with MaxBytesOn handles, on a rank count, the
// smaller of MaxBytes and MaxBytesOn's message; a refusal above it names the rank count,
// one at MaxBytes does not; with the rank count unknown (0) MaxBytes holds.
func TestLargestByRankCount(t *testing.T) {
	a := &Algorithm{Collective: "reduce", Name: "test", MaxBytes: 64 << 20,
		MaxBytesOn: func(n int) int64 { return 128 << 20 / int64(n) }}
	tests := []struct {
		nranks  int
		size    int64
		largest int64
		err     string // "" = accepted
	}{
		{0, 64 << 20, 64 << 20, ""},
		{0, 64<<20 + 1, 64 << 20, "reduce test handles 0 to 67108864 bytes, not 67108865"},
		{1, 64 << 20, 64 << 20, ""}, // MaxBytesOn's 128 MiB is above MaxBytes
		{2, 64 << 20, 64 << 20, ""},
		{4, 32 << 20, 32 << 20, ""},
		{4, 32<<20 + 1, 32 << 20, "reduce test handles 0 to 33554432 bytes on 4 ranks, not 33554433"},
		{8, 64 << 20, 16 << 20, "handles 0 to 16777216 bytes on 8 ranks"},
	}
	for _, tt := range tests {
		if got := a.Largest(tt.nranks); got != tt.largest {
			t.Errorf("Largest(%d) = %d, want %d", tt.nranks, got, tt.largest)
		}
		err := a.supportsSize(tt.size, tt.nranks)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("supportsSize(%d, %d ranks) = %v, want %q", tt.size, tt.nranks, err, tt.err)
		}
	}
	if err := a.Supports(32<<20+1, 4, "float"); err == nil {
		t.Errorf("Supports(32 MiB + 1, 4 ranks) accepted above MaxBytesOn's 32 MiB")
	}
	plain := &Algorithm{Collective: "reduce", Name: "plain"} // no limits
	if got := plain.Largest(8); got != 0 || plain.supportsSize(1<<40, 8) != nil {
		t.Errorf("without limits: Largest(8) = %d, supportsSize(1 TiB) = %v; want 0 and nil", got, plain.supportsSize(1<<40, 8))
	}
}
