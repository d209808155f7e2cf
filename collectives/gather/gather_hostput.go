package gather

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// gather hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSGather mode: small messages between
// ranks that are all connected over a network transport.
func init() {
	portstaged.RegisterHost("gather", portstaged.PSGather,
		"host-resident buffers (every peer over a network): put my buffer from host memory into the root's scratch; small messages")
}
