package broadcast

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// broadcast portput: the port-staged family's algorithm (collectives/family/portstaged) in
// PSBroadcast mode: port channels only, so any layout of hosts.
func init() {
	portstaged.Register("broadcast", portstaged.PSBroadcast,
		"port channels only (any hosts): the root puts its buffer into every scratch, local copy out")
}
