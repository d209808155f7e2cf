package reducescatter

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// reducescatter hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSReduceScatter mode: messages to
// portstaged.StreamedMax between ranks over a network transport, the ranks of one host
// over NVLink; a chunk over 4 MiB is reduced as soon as it lands from every peer (where
// none sends over CUDA IPC). -k auto takes it to 64 MiB where no pair uses CUDA IPC: on
// one H200 as 2 simulated hosts of one rank under MPS, 2026-11-29, -b 4M -e 64M -f 2 -n 10
// -w 3, two rounds, out of place, against -k portput in the same call
// (docs/performance.md, "hostput receives that stream"), it took 758 and 856 µs at 8 MiB
// against 1100 and 1029, 2045 and 2143 at 32 MiB against 2637 and 2540, 3937 and 3946 at
// 64 MiB against 5371 and 5465.
// On hosts of two ranks, a GPU each, it is automatic to 64 MiB as well
// (portstaged.FewPerHost says what was measured there).
func init() {
	portstaged.RegisterHostAs("reducescatter", portstaged.PSReduceScatter,
		"host-resident buffers between hosts (NVLink to my host's ranks): put each peer's chunk from host memory into its scratch, GPU reduction; messages to 64 MiB",
		portstaged.Streamed(portstaged.StreamedMax))
}
