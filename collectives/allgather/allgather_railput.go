package allgather

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// allgather railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSAllgather mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host.
func init() {
	portstaged.RegisterRail("allgather", portstaged.PSAllgather,
		"rail routing through host-resident buffers: my chunk once to each other host, forwarded there over NVLink; small messages")
}
