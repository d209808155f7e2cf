package reduce

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// reduce hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSReduce mode: messages to
// portstaged.WholeMax (64 MiB on 2 ranks, 4 MiB on more: the root's scratch holds every
// rank's whole message) between ranks over a network transport, the ranks of one host
// over NVLink; a message over 4 MiB is reduced at the root as it lands from the peer.
// -k auto takes it to there where no pair uses CUDA IPC: on one H200 as 2 simulated hosts
// of one rank under MPS, 2026-11-29, -b 8M -e 64M -f 2 -n 10 -w 3, three rounds, out of
// place, against -k portput in the same call (docs/performance.md, "reduce and allreduce
// hostput to 64 MiB"), it took 395-520 µs at 8 MiB against 965-1010, 1387-1590 at 32 MiB
// against 2400-2631, 2967-3189 at 64 MiB against 4262-4749.
func init() {
	portstaged.RegisterHostAs("reduce", portstaged.PSReduce,
		"host-resident buffers between hosts (NVLink to my host's ranks): put my buffer from host memory into the root's scratch, GPU reduction there; messages to 64 MiB on 2 ranks",
		portstaged.StreamedWhole)
}
