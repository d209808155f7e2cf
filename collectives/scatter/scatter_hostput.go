package scatter

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// scatter hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSScatter mode: small messages between
// ranks over a network transport, the ranks of one host over NVLink.
func init() {
	portstaged.RegisterHost("scatter", portstaged.PSScatter,
		"host-resident buffers between hosts (NVLink to my host's ranks): the root puts each peer's chunk from host memory into its scratch; small messages")
}
