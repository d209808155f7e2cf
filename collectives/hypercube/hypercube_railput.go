package hypercube

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// hypercube railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSAllgather mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host.
func init() {
	portstaged.RegisterRail("hypercube", portstaged.PSAllgather,
		"rail routing through host-resident buffers: my buffer once to each other host, forwarded there over NVLink; the result in one step; small messages")
}
