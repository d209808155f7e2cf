package alltoallv

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// alltoallv hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSAlltoallv mode: small messages between
// ranks that are all connected over a network transport.
func init() {
	portstaged.RegisterHost("alltoallv", portstaged.PSAlltoallv,
		"host-resident buffers (every peer over a network): put each peer's segment from host memory into its scratch; small messages")
}
