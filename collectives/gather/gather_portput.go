package gather

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// gather portput: the port-staged family's algorithm (collectives/family/portstaged) in
// PSGather mode: port channels only, so any layout of hosts.
func init() {
	portstaged.Register("gather", portstaged.PSGather,
		"port channels only (any hosts): put my chunk into the root's scratch, local copy out")
}
