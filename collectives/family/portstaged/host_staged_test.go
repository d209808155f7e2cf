package portstaged

import (
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
)

// TestHostSegBytes checks hostput's slot sizing: four times the run's largest message up
// to algo.HostStagedMax, and 8 regions for that message wherever the slots allow it.
func TestHostSegBytes(t *testing.T) {
	for _, tc := range []struct {
		maxBytes  int64
		seg       uint64
		lastDepth uint32 // regions of a launch whose segment is the whole largest message
	}{
		{8, 32, 8},
		{1000, 4000, 8},
		{16 << 10, 64 << 10, 8},
		{1 << 20, 4 << 20, 8},
		{2 << 20, 4 << 20, 2},
		{4 << 20, 4 << 20, 2},
		{64 << 20, 4 << 20, 2},
	} {
		seg := hostSegBytes(tc.maxBytes)
		if seg != tc.seg {
			t.Errorf("hostSegBytes(%d) = %d, want %d", tc.maxBytes, seg, tc.seg)
		}
		slotBytes := algo.RoundUp(max(seg, 16), 256)
		largest := algo.RoundUp(uint64(min(tc.maxBytes, algo.HostStagedMax)), 16)
		if largest > slotBytes {
			t.Errorf("max %d: a %d-byte segment does not fit %d-byte slots", tc.maxBytes, largest, slotBytes)
		}
		if d := hostDepth(largest, slotBytes); d != tc.lastDepth {
			t.Errorf("max %d: the largest message gets %d regions, want %d", tc.maxBytes, d, tc.lastDepth)
		}
	}
}
