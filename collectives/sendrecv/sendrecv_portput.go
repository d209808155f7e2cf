package sendrecv

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// sendrecv portput: the port-staged family's algorithm (collectives/family/portstaged) in
// PSSendRecv mode: port channels only, so any layout of hosts.
func init() {
	portstaged.Register("sendrecv", portstaged.PSSendRecv,
		"port channels only (any hosts): put my buffer into the next rank's scratch, local copy out")
}
