package broadcast

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// broadcast railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSBroadcast mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host.
func init() {
	portstaged.RegisterRail("broadcast", portstaged.PSBroadcast,
		"rail routing through host-resident buffers: the root's buffer once to each other host, forwarded there over NVLink; small messages")
}
