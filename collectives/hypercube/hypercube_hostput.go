package hypercube

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// hypercube hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSAllgather mode: small messages between
// ranks that are all connected over a network transport.
func init() {
	portstaged.RegisterHost("hypercube", portstaged.PSAllgather,
		"host-resident buffers (every peer over a network): put my buffer from host memory into every peer's scratch, the result in one step; small messages")
}
