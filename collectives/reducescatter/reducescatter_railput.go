package reducescatter

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// reducescatter railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSReduceScatter mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host.
func init() {
	portstaged.RegisterRail("reducescatter", portstaged.PSReduceScatter,
		"rail routing through host-resident buffers: one bundle of chunks per other host, forwarded there over NVLink; GPU reduction; small messages")
}
