package alltoall

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// alltoall portput: the port-staged family's algorithm (collectives/family/portstaged) in
// PSAlltoall mode: port channels only, so any layout of hosts.
func init() {
	portstaged.Register("alltoall", portstaged.PSAlltoall,
		"port channels only (any hosts): put each peer's chunk into its scratch, local copy out")
}
