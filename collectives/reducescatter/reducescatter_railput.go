package reducescatter

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
)

// reducescatter railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSReduceScatter mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host. A host's chunks for a rank are summed on
// that host first, by the rank's rail peer there, so a host's partial crosses the network
// once instead of each rank's chunk: -k auto takes it on hosts of 2 and 3 ranks too, from
// portstaged.HostFirstAutoMin.
func init() {
	portstaged.RegisterRailAs("reducescatter", portstaged.PSReduceScatter,
		"rail routing through host-resident buffers: each host's chunks for a rank summed on the host over NVLink, one partial per host along the rail; GPU reduction; small messages",
		func(a *collectives.Algorithm) {
			a.AutoOn, a.AutoSizes = collectives.Layout.Hierarchical, portstaged.HostFirstAuto
		})
}
