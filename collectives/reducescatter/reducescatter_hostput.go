package reducescatter

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// reducescatter hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSReduceScatter mode: small messages between
// ranks that are all connected over a network transport.
func init() {
	portstaged.RegisterHost("reducescatter", portstaged.PSReduceScatter,
		"host-resident buffers (every peer over a network): put each peer's chunk from host memory into its scratch, GPU reduction; small messages")
}
