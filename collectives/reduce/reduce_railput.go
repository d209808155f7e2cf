package reduce

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// reduce railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSReduce mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host.
func init() {
	portstaged.RegisterRail("reduce", portstaged.PSReduce,
		"rail routing through host-resident buffers: my buffer to the root's host along my rail, forwarded there over NVLink; GPU reduction at the root; small messages")
}
