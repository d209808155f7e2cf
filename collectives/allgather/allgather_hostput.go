package allgather

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// allgather hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSAllgather mode: small messages between
// ranks over a network transport, the ranks of one host over NVLink. Block 0 copies my chunk
// into my host-resident outbox and puts it, with a signal, into every network peer's
// host-resident scratch (over Ethernet no CUDA call is then on the proxy's or the
// receiver's path), and writes it straight into the GPU-memory scratch of my host's other
// ranks; every rank copies the gathered slots into its output.
func init() {
	portstaged.RegisterHost("allgather", portstaged.PSAllgather,
		"host-resident buffers between hosts (NVLink to my host's ranks): put of my chunk from host memory into every peer's; small messages")
}
