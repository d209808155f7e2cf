package alltoallv

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// alltoallv hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSAlltoallv mode: small messages between
// ranks over a network transport, the ranks of one host over NVLink.
func init() {
	portstaged.RegisterHost("alltoallv", portstaged.PSAlltoallv,
		"host-resident buffers between hosts (NVLink to my host's ranks): put each peer's segment from host memory into its scratch; small messages")
}
