package allgather

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// allgather hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSAllgather mode: messages to
// portstaged.StreamedMax between ranks over a network transport, the ranks of one host
// over NVLink. Block 0 copies my chunk
// into my host-resident outbox and puts it, with a signal, into every network peer's
// host-resident scratch (over Ethernet no CUDA call is then on the proxy's or the
// receiver's path), and writes it straight into the GPU-memory scratch of my host's other
// ranks; every rank copies the gathered slots into its output, a chunk over 4 MiB as soon
// as it lands. -k auto takes it to 64 MiB where no pair uses CUDA IPC: on one H200 as 2
// simulated hosts of one rank under MPS, 2026-11-29, -b 4M -e 64M -f 2 -n 10 -w 3, two
// rounds, out of place, against -k portput in the same call (docs/performance.md,
// "hostput receives that stream"), it took 705 and 867 µs at 8 MiB against 974 and 980,
// 2011 and 2317 at 32 MiB against 2325 and 2556, 3472 and 4063 at 64 MiB against 4519 and
// 5415.
// On hosts of two ranks, a GPU each, its automatic range reaches 64 MiB as well
// (portstaged.FewPerHost), but where hier runs (hosts of equal rank counts) it comes first
// by AutoPriority and keeps the sizes above 4 MiB.
func init() {
	portstaged.RegisterHostAs("allgather", portstaged.PSAllgather,
		"host-resident buffers between hosts (NVLink to my host's ranks): put of my chunk from host memory into every peer's; messages to 64 MiB",
		portstaged.Streamed(portstaged.StreamedMax))
}
