package portstaged

import (
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
)

// TestHostSegBytes checks hostput's slot sizing: four times the largest rank-pair segment
// of the run's largest message, up to the segment of the algorithm's limit
// (algo.HostStagedMax, or 64 MiB), and 8 regions for that message wherever the slots
// allow it.
func TestHostSegBytes(t *testing.T) {
	const m64 = 64 << 20
	for _, tc := range []struct {
		mode            PortStagedMode
		nranks          int
		maxBytes, limit int64
		seg             uint64
		lastDepth       uint32 // regions of a launch whose segment is the largest message's
	}{
		{PSBroadcast, 2, 8, algo.HostStagedMax, 64, 8},
		{PSBroadcast, 2, 1000, algo.HostStagedMax, 4032, 8},
		{PSBroadcast, 4, 16 << 10, algo.HostStagedMax, 64 << 10, 8},
		{PSBroadcast, 2, 1 << 20, algo.HostStagedMax, 4 << 20, 8},
		{PSBroadcast, 2, 2 << 20, algo.HostStagedMax, 4 << 20, 2},
		{PSBroadcast, 2, 4 << 20, algo.HostStagedMax, 4 << 20, 2},
		{PSBroadcast, 2, 64 << 20, algo.HostStagedMax, 4 << 20, 2},
		{PSBroadcast, 2, 1 << 20, m64, 4 << 20, 8},
		{PSBroadcast, 2, 4 << 20, m64, 16 << 20, 8},
		{PSBroadcast, 2, 9<<20 + 12, m64, 36<<20 + 64, 8},
		{PSBroadcast, 2, 16 << 20, m64, 64 << 20, 8},
		{PSBroadcast, 2, 32 << 20, m64, 64 << 20, 2},
		{PSBroadcast, 2, 64 << 20, m64, 64 << 20, 2},
		{PSBroadcast, 8, 1 << 30, m64, 64 << 20, 2},
		{PSSendRecv, 2, 64 << 20, m64, 64 << 20, 2},
		// an nth of the message to each peer: slots of an nth
		{PSAllgather, 2, 64 << 20, m64, 32 << 20, 2},
		{PSAllgather, 8, 64 << 20, m64, 8 << 20, 2},
		{PSAllgather, 8, 4 << 20, m64, 2 << 20, 8},
		{PSAlltoall, 3, 1000, algo.HostStagedMax, 4 * 336, 8},
		{PSAlltoall, 4, 1 << 30, algo.HostStagedMax, 1 << 20, 2},
		{PSReduceScatter, 2, 9<<20 + 12, m64, 18<<20 + 64, 8},
		{PSGather, 4, 8 << 20, algo.HostStagedMax, 1 << 20, 2},
		{PSScatter, 4, 1 << 20, algo.HostStagedMax, 1 << 20, 8},
	} {
		seg := hostSegBytes(tc.mode, tc.maxBytes, tc.limit, tc.nranks)
		if seg != tc.seg {
			t.Errorf("hostSegBytes(%d, %d, %d, %d) = %d, want %d", tc.mode, tc.maxBytes, tc.limit, tc.nranks, seg, tc.seg)
		}
		slotBytes := algo.RoundUp(max(seg, 16), 256)
		largest := tc.mode.PairBytes(uint64(min(tc.maxBytes, tc.limit)), tc.nranks)
		if largest > slotBytes {
			t.Errorf("mode %d max %d: a %d-byte segment does not fit %d-byte slots", tc.mode, tc.maxBytes, largest, slotBytes)
		}
		if d := hostDepth(largest, slotBytes); d != tc.lastDepth {
			t.Errorf("mode %d max %d: the largest message gets %d regions, want %d", tc.mode, tc.maxBytes, d, tc.lastDepth)
		}
	}
}
