package hypercube

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// hypercube hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSAllgather mode: messages to
// portstaged.StreamedMax between ranks over a network transport, the ranks of one host
// over NVLink; a chunk over 4 MiB is copied out as soon as it lands. -k auto takes it to 64
// MiB where no pair uses CUDA IPC: on one H200 as 2 simulated hosts of one rank under MPS,
// 2026-11-29, -b 4M -e 64M -f 2 -n 10 -w 3, two rounds, out of place, a build whose only
// difference was this limit, against -k portput in the same call (docs/performance.md,
// "hostput receives that stream"), it took 683-736 µs at 8 MiB against 968-1051, 3657-3737
// at 64 MiB against 4534-4569.
// On hosts of two ranks, a GPU each, it is automatic to 64 MiB as well
// (portstaged.FewPerHost says what was measured there).
func init() {
	portstaged.RegisterHostAs("hypercube", portstaged.PSAllgather,
		"host-resident buffers between hosts (NVLink to my host's ranks): put my buffer from host memory into every peer's scratch, the result in one step; messages to 64 MiB",
		portstaged.Streamed(portstaged.StreamedMax))
}
