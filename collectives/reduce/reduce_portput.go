package reduce

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// reduce portput: the port-staged family's algorithm (collectives/family/portstaged) in
// PSReduce mode: port channels only, so any layout of hosts.
func init() {
	portstaged.Register("reduce", portstaged.PSReduce,
		"port channels only (any hosts): put my buffer into the root's scratch, GPU reduction there")
}
