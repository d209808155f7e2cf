package scatter

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// scatter portput: the port-staged family's algorithm (collectives/family/portstaged) in
// PSScatter mode: port channels only, so any layout of hosts.
func init() {
	portstaged.Register("scatter", portstaged.PSScatter,
		"port channels only (any hosts): the root puts each chunk into its rank's scratch, local copy out")
}
