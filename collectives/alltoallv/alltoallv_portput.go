package alltoallv

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// alltoallv portput: the port-staged family's algorithm (collectives/family/portstaged) in
// PSAlltoallv mode: port channels only, so any layout of hosts.
func init() {
	portstaged.Register("alltoallv", portstaged.PSAlltoallv,
		"port channels only (any hosts): put each peer's segment into its scratch, local copy out")
}
