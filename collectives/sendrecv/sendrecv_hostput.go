package sendrecv

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
)

// sendrecv hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSSendRecv mode: messages to
// portstaged.StreamedMax between ranks over a network transport, the ranks of one host
// over NVLink. Its outbox holds one slot a region (the next rank's segment is the only
// one); a segment over 4 MiB goes in chunks that the receiver copies as they land (where
// it comes over the network). -k auto takes it as hostPutAuto says.
func init() {
	portstaged.RegisterHostAs("sendrecv", portstaged.PSSendRecv,
		"host-resident buffers between hosts (NVLink to my host's ranks): put my buffer from host memory into the next rank's scratch; messages to 64 MiB",
		func(a *collectives.Algorithm) { a.MaxBytes, a.AutoSizes = portstaged.StreamedMax, hostPutAuto })
}

// HostPutAutoMax is the largest message -k auto gives sendrecv hostput where no pair uses
// CUDA IPC but ranks share a GPU, and on hosts of two ranks with a GPU each
// (portstaged.FewPerHost; portput above). Measured on one H200 as 2 simulated hosts of one
// rank under MPS, 2026-11-29, -k hostput and -k portput in turn, -n 10 -w 3, five rounds
// (two of -b 4M -e 64M -f 2, three of -b 16M -e 64M -f 2), out of place: hostput took less
// time at 16 MiB in four rounds of five (2039-2679 µs against 2464-2695) and at 32 MiB in
// all five (3688-4928 against 4536-5446), but at 64 MiB it read 8033-9648 against
// 8145-9625, less in two rounds of five (docs/performance.md, "sendrecv hostput to 64
// MiB"); on 4×H200 as 2 simulated hosts of 2 ranks, a GPU each, it took less time at 64
// MiB in one round of two.
const HostPutAutoMax = 32 << 20

// hostPutAuto is sendrecv hostput's -k auto range on layout l: to portstaged.StreamedMax
// where no pair uses CUDA IPC and every rank has a GPU of its own, else
// portstaged.StreamedAuto's to HostPutAutoMax. On 2×H200 as 2 simulated hosts of one rank,
// 2026-11-29, -k hostput and -k portput in turn, -n 10 -w 3, 64 MiB out of place: hostput
// took less time in all nine rounds of four calls (4744-7928 µs against 5617-10795), in
// place in six of the seven with in place kept (docs/performance.md, "Every collective
// across hosts on 2×H200, build 595ce74"). Other layouts without CUDA IPC (more hosts of
// one rank, a network transport inside a host) take it by the same rule, unmeasured.
func hostPutAuto(l collectives.Layout) (int64, int64) {
	if l.NetworkOnly() && !l.SharedGPU {
		return 0, portstaged.StreamedMax
	}
	return portstaged.StreamedAuto(HostPutAutoMax)(l)
}
