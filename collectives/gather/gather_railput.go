package gather

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// gather railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSGather mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host.
func init() {
	portstaged.RegisterRail("gather", portstaged.PSGather,
		"rail routing through host-resident buffers: my buffer to the root's host along my rail, forwarded there over NVLink; small messages")
}
