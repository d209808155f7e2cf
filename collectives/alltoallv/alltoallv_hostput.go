package alltoallv

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// alltoallv hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSAlltoallv mode: messages to
// portstaged.WholeMax (64 MiB on 2 ranks, 4 MiB on more: a peer's segment can be the whole
// message, and the outbox and scratch keep a slot for every peer) between ranks over a
// network transport, the ranks of one host over NVLink; a segment over 4 MiB is copied
// out as its chunks land.
func init() {
	portstaged.RegisterHostAs("alltoallv", portstaged.PSAlltoallv,
		"host-resident buffers between hosts (NVLink to my host's ranks): put each peer's segment from host memory into its scratch; messages to 64 MiB on 2 ranks",
		portstaged.StreamedWhole)
}
