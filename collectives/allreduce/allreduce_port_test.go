package allreduce

import "testing"

// TestPieceBytes: the copy engine's pieces are an eighth of the chunk, 16-byte aligned,
// from 8 to 16 MiB (so 8 pieces from a 128 MiB chunk, that is a 256 MiB allreduce on 2
// ranks, up to 16 MiB pieces beyond).
func TestPieceBytes(t *testing.T) {
	for _, c := range []struct{ chunk, want uint64 }{
		{0, 8 << 20},
		{1 << 20, 8 << 20},
		{64 << 20, 8 << 20},
		{96 << 20, 12 << 20},
		{100_000_001, 12_500_000},
		{128 << 20, 16 << 20},
		{1 << 30, 16 << 20},
	} {
		got := PieceBytes(c.chunk)
		if got != c.want {
			t.Errorf("PieceBytes(%d) = %d, want %d", c.chunk, got, c.want)
		}
		if got%16 != 0 {
			t.Errorf("PieceBytes(%d) = %d, not 16-byte aligned", c.chunk, got)
		}
	}
}
