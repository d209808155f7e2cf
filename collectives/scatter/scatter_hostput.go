package scatter

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// scatter hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSScatter mode: messages to
// portstaged.StreamedMax between ranks over a network transport, the ranks of one host
// over NVLink; a chunk over 4 MiB is copied out as soon as it lands. -k auto takes it to 64
// MiB where no pair uses CUDA IPC: on one H200 as 2 simulated hosts of one rank under MPS,
// 2026-11-29, -b 4M -e 64M -f 2 -n 10 -w 3 -r 1, two rounds, out of place, a build whose
// only difference was this limit, against -k portput in the same call
// (docs/performance.md, "hostput receives that stream"), it took 265-302 µs at 8 MiB
// against 620-642, 1587-1645 at 64 MiB against 2523-2719.
// On hosts of two ranks, a GPU each, it is automatic to 64 MiB as well
// (portstaged.FewPerHost says what was measured there).
func init() {
	portstaged.RegisterHostAs("scatter", portstaged.PSScatter,
		"host-resident buffers between hosts (NVLink to my host's ranks): the root puts each peer's chunk from host memory into its scratch; messages to 64 MiB",
		portstaged.Streamed(portstaged.StreamedMax))
}
