package scatter

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// scatter hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSScatter mode: small messages between
// ranks that are all connected over a network transport.
func init() {
	portstaged.RegisterHost("scatter", portstaged.PSScatter,
		"host-resident buffers (every peer over a network): the root puts each peer's chunk from host memory into its scratch; small messages")
}
