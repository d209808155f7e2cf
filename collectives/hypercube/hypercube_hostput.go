package hypercube

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// hypercube hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSAllgather mode: small messages between
// ranks over a network transport, the ranks of one host over NVLink.
func init() {
	portstaged.RegisterHost("hypercube", portstaged.PSAllgather,
		"host-resident buffers between hosts (NVLink to my host's ranks): put my buffer from host memory into every peer's scratch, the result in one step; small messages")
}
