package broadcast

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// broadcast hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSBroadcast mode: small messages between
// ranks over a network transport, the ranks of one host over NVLink.
func init() {
	portstaged.RegisterHost("broadcast", portstaged.PSBroadcast,
		"host-resident buffers between hosts (NVLink to my host's ranks): the root puts its buffer from host memory into every peer's scratch; small messages")
}
