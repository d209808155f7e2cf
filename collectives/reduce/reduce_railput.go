package reduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
)

// reduce railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSReduce mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host. Each host's buffers are summed on that
// host first, by the root's rail peer there, so one partial per host crosses the network
// instead of each rank's buffer: -k auto takes it on hosts of 2 and 3 ranks too
// (reducescatter_railput.go says what was measured).
func init() {
	portstaged.RegisterRailAs("reduce", portstaged.PSReduce,
		"rail routing through host-resident buffers: each host's buffers summed on the root's rail over NVLink, one partial per host to the root; GPU reduction; small messages",
		func(a *collectives.Algorithm) {
			a.AutoOn = collectives.Layout.Hierarchical
		})
}
