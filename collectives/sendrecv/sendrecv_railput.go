package sendrecv

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// sendrecv railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSSendRecv mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host.
func init() {
	portstaged.RegisterRail("sendrecv", portstaged.PSSendRecv,
		"rail routing through host-resident buffers: my buffer to the next rank along my rail, forwarded there over NVLink; small messages")
}
