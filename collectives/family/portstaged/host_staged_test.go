package portstaged

import (
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
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

// TestFewPerHost checks the layouts where the streamed hostput is automatic above 4 MiB
// although a host's ranks use CUDA IPC: hosts of at most two ranks, no GPU shared.
func TestFewPerHost(t *testing.T) {
	ipc := func(i, j int) bool { return true }
	shared := func(l collectives.Layout) collectives.Layout { l.SharedGPU = true; return l }
	for _, tc := range []struct {
		name string
		l    collectives.Layout
		want bool
	}{
		{"2 hosts of 1", collectives.NewLayout([]string{"a", "b"}, ipc), true},
		{"2 hosts of 2", collectives.NewLayout([]string{"a", "a", "b", "b"}, ipc), true},
		{"hosts of 2 and 1", collectives.NewLayout([]string{"a", "a", "b"}, ipc), true},
		{"4 hosts of 2", collectives.NewLayout([]string{"a", "a", "b", "b", "c", "c", "d", "d"}, ipc), true},
		{"hosts of 3 and 1", collectives.NewLayout([]string{"a", "a", "a", "b"}, ipc), false},
		{"2 hosts of 4", collectives.NewLayout([]string{"a", "a", "a", "a", "b", "b", "b", "b"}, ipc), false},
		{"2 hosts of 2, shared GPUs", shared(collectives.NewLayout([]string{"a", "a", "b", "b"}, ipc)), false},
	} {
		if got := FewPerHost(tc.l); got != tc.want {
			t.Errorf("FewPerHost(%s) = %v, want %v", tc.name, got, tc.want)
		}
		want := int64(algo.HostStagedAutoMax)
		if tc.want {
			want = StreamedMax
		}
		if _, hi := StreamedAuto(StreamedMax)(tc.l); hi != want {
			t.Errorf("StreamedAuto(%s) reaches %d, want %d", tc.name, hi, want)
		}
	}
}
