package reduce

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// reduce hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSReduce mode: small messages between
// ranks that are all connected over a network transport.
func init() {
	portstaged.RegisterHost("reduce", portstaged.PSReduce,
		"host-resident buffers (every peer over a network): put my buffer from host memory into the root's scratch, GPU reduction there; small messages")
}
