package broadcast

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// broadcast hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSBroadcast mode: small messages between
// ranks that are all connected over a network transport.
func init() {
	portstaged.RegisterHost("broadcast", portstaged.PSBroadcast,
		"host-resident buffers (every peer over a network): the root puts its buffer from host memory into every peer's scratch; small messages")
}
