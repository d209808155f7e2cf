package alltoallv

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// alltoallv hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSAlltoallv mode: messages to
// portstaged.WholeMax (64 MiB on 2 ranks, 4 MiB on more: a peer's segment can be the whole
// message, and the outbox and scratch keep a slot for every peer) between ranks over a
// network transport, the ranks of one host over NVLink; a segment over 4 MiB is copied
// out as its chunks land. -k auto takes it to there where no pair uses CUDA IPC: on
// 2×H200 as 2 simulated hosts of one rank, 2026-11-29, -b 4M -e 64M -f 2 -n 10 -w 3, two
// rounds, out of place, against -k portput in the same call (docs/performance.md, "Every
// collective across hosts on 2×H200, build 25f52a6"), it took 571-865 µs at 4 MiB against
// 1537-2039, 3179-3897 at 32 MiB against 5355-7999, 6926-7667 at 64 MiB against
// 10613-13717.
func init() {
	portstaged.RegisterHostAs("alltoallv", portstaged.PSAlltoallv,
		"host-resident buffers between hosts (NVLink to my host's ranks): put each peer's segment from host memory into its scratch; messages to 64 MiB on 2 ranks",
		portstaged.StreamedWhole)
}
