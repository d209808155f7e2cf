package hypercube

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// hypercube portput: the port-staged family's algorithm (collectives/family/portstaged) in
// PSAllgather mode: port channels only, so any layout of hosts.
func init() {
	portstaged.Register("hypercube", portstaged.PSAllgather,
		"port channels only (any hosts): put my chunk into every scratch (an all-gather in one step)")
}
