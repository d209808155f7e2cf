package gather

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// gather hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSGather mode: messages to
// portstaged.StreamedMax between ranks over a network transport, the ranks of one host
// over NVLink; the root copies a chunk over 4 MiB out as soon as it lands. -k auto takes it
// to 64 MiB where no pair uses CUDA IPC: on one H200 as 2 simulated hosts of one rank under
// MPS, 2026-11-29, -b 4M -e 64M -f 2 -n 10 -w 3 -r 1, two rounds, out of place, a build
// whose only difference was this limit, against -k portput in the same call
// (docs/performance.md, "hostput receives that stream"), it took 233-324 µs at 8 MiB
// against 592-615, 1510-1527 at 64 MiB against 2659-2685.
// On hosts of two ranks, a GPU each, it is automatic to 64 MiB as well
// (portstaged.FewPerHost says what was measured there).
func init() {
	portstaged.RegisterHostAs("gather", portstaged.PSGather,
		"host-resident buffers between hosts (NVLink to my host's ranks): put my buffer from host memory into the root's scratch; messages to 64 MiB",
		portstaged.Streamed(portstaged.StreamedMax))
}
