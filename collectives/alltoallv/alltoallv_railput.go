package alltoallv

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// alltoallv railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSAlltoallv mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host.
func init() {
	portstaged.RegisterRail("alltoallv", portstaged.PSAlltoallv,
		"rail routing through host-resident buffers: one bundle of segments per other host, forwarded there over NVLink; small messages")
}
