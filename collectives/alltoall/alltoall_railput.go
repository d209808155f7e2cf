package alltoall

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// alltoall railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSAlltoall mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host.
func init() {
	portstaged.RegisterRail("alltoall", portstaged.PSAlltoall,
		"rail routing through host-resident buffers: one bundle of chunks per other host, forwarded there over NVLink; small messages")
}
