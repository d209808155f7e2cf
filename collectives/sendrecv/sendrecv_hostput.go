package sendrecv

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// sendrecv hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSSendRecv mode: small messages between
// ranks over a network transport, the ranks of one host over NVLink.
func init() {
	portstaged.RegisterHost("sendrecv", portstaged.PSSendRecv,
		"host-resident buffers between hosts (NVLink to my host's ranks): put my buffer from host memory into the next rank's scratch; small messages")
}
