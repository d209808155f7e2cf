package reducescatter

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// reducescatter portput: the port-staged family's algorithm (collectives/family/portstaged) in
// PSReduceScatter mode: port channels only, so any layout of hosts.
func init() {
	portstaged.Register("reducescatter", portstaged.PSReduceScatter,
		"port channels only (any hosts): put each peer's chunk into its scratch, GPU reduction of mine")
}
