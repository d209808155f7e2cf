package portstaged

import (
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
)

// TestHostSegBytes checks hostput's slot sizing: four times the run's largest message up
// to the algorithm's limit (algo.HostStagedMax, or broadcast's 64 MiB), and 8 regions for
// that message wherever the slots allow it.
func TestHostSegBytes(t *testing.T) {
	for _, tc := range []struct {
		maxBytes, limit int64
		seg             uint64
		lastDepth       uint32 // regions of a launch whose segment is the whole largest message
	}{
		{8, algo.HostStagedMax, 32, 8},
		{1000, algo.HostStagedMax, 4000, 8},
		{16 << 10, algo.HostStagedMax, 64 << 10, 8},
		{1 << 20, algo.HostStagedMax, 4 << 20, 8},
		{2 << 20, algo.HostStagedMax, 4 << 20, 2},
		{4 << 20, algo.HostStagedMax, 4 << 20, 2},
		{64 << 20, algo.HostStagedMax, 4 << 20, 2},
		{1 << 20, 64 << 20, 4 << 20, 8},
		{4 << 20, 64 << 20, 16 << 20, 8},
		{9<<20 + 12, 64 << 20, 36<<20 + 48, 8},
		{16 << 20, 64 << 20, 64 << 20, 8},
		{32 << 20, 64 << 20, 64 << 20, 2},
		{64 << 20, 64 << 20, 64 << 20, 2},
		{1 << 30, 64 << 20, 64 << 20, 2},
	} {
		seg := hostSegBytes(tc.maxBytes, tc.limit)
		if seg != tc.seg {
			t.Errorf("hostSegBytes(%d, %d) = %d, want %d", tc.maxBytes, tc.limit, seg, tc.seg)
		}
		slotBytes := algo.RoundUp(max(seg, 16), 256)
		largest := algo.RoundUp(uint64(min(tc.maxBytes, tc.limit)), 16)
		if largest > slotBytes {
			t.Errorf("max %d: a %d-byte segment does not fit %d-byte slots", tc.maxBytes, largest, slotBytes)
		}
		if d := hostDepth(largest, slotBytes); d != tc.lastDepth {
			t.Errorf("max %d: the largest message gets %d regions, want %d", tc.maxBytes, d, tc.lastDepth)
		}
	}
}
