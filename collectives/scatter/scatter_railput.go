package scatter

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// scatter railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSScatter mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host.
func init() {
	portstaged.RegisterRail("scatter", portstaged.PSScatter,
		"rail routing through host-resident buffers: the root's chunks for each other host in one bundle, forwarded there over NVLink; small messages")
}
