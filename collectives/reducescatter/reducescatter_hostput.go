package reducescatter

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// reducescatter hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSReduceScatter mode: small messages between
// ranks over a network transport, the ranks of one host over NVLink.
func init() {
	portstaged.RegisterHost("reducescatter", portstaged.PSReduceScatter,
		"host-resident buffers between hosts (NVLink to my host's ranks): put each peer's chunk from host memory into its scratch, GPU reduction; small messages")
}
