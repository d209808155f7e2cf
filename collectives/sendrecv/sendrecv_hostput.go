package sendrecv

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// sendrecv hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSSendRecv mode: small messages between
// ranks that are all connected over a network transport.
func init() {
	portstaged.RegisterHost("sendrecv", portstaged.PSSendRecv,
		"host-resident buffers (every peer over a network): put my buffer from host memory into the next rank's scratch; small messages")
}
