package sendrecv

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
)

// sendrecv hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSSendRecv mode: messages to
// portstaged.StreamedMax between ranks over a network transport, the ranks of one host
// over NVLink. Its outbox holds one slot a region (the next rank's segment is the only
// one); a segment over 4 MiB goes in chunks that the receiver copies as they land (where
// it comes over the network).
func init() {
	portstaged.RegisterHostAs("sendrecv", portstaged.PSSendRecv,
		"host-resident buffers between hosts (NVLink to my host's ranks): put my buffer from host memory into the next rank's scratch; messages to 64 MiB",
		func(a *collectives.Algorithm) {
			a.MaxBytes, a.AutoSizes = portstaged.StreamedMax, portstaged.StreamedAuto(portstaged.StreamedMax)
		})
}
