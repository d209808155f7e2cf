package alltoall

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// alltoall hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSAlltoall mode: messages to
// portstaged.StreamedMax between ranks over a network transport, the ranks of one host
// over NVLink; a chunk over 4 MiB is copied out as soon as it lands. -k auto takes it to
// 64 MiB where no pair uses CUDA IPC: on one H200 as 2 simulated hosts of one rank under
// MPS, 2026-11-29, -b 4M -e 64M -f 2 -n 10 -w 3, two rounds, out of place, against -k
// portput in the same call (docs/performance.md, "hostput receives that stream"), it took
// 882 and 732 µs at 8 MiB against 1050 and 1072, 2064 and 2185 at 32 MiB against 2448 and
// 2546, 3815 and 4419 at 64 MiB against 5429 and 5098.
// On hosts of two ranks, a GPU each, it is automatic to 64 MiB as well
// (portstaged.FewPerHost says what was measured there).
func init() {
	portstaged.RegisterHostAs("alltoall", portstaged.PSAlltoall,
		"host-resident buffers between hosts (NVLink to my host's ranks): put each peer's chunk from host memory into its scratch; messages to 64 MiB",
		portstaged.Streamed(portstaged.StreamedMax))
}
