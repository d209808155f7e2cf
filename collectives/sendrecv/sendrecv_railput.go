package sendrecv

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
)

// sendrecv railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSSendRecv mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host. Automatic where the family's RailAuto
// says, over the sizes of railAuto.
func init() {
	portstaged.RegisterRailAs("sendrecv", portstaged.PSSendRecv,
		"rail routing through host-resident buffers: my buffer to the next rank along my rail, forwarded there over NVLink; small messages",
		func(a *collectives.Algorithm) { a.AutoSizes = railAuto })
}

// railAuto is the size range where -k auto gives sendrecv railput: the family's whole
// range on hosts of portstaged.RailAutoLocal ranks or more, up to 64 KiB on smaller hosts
// whose ranks share GPUs (hostput above). Measured on one H100 as 2 simulated hosts of 2
// ranks under MPS, 2026-11-27, -k auto of the build before and after railput took it
// there, two rounds alternating, -b 64 -e 4M -f 4 -n 20: railput 87-152 µs from 64 B to 64
// KiB against hostput's 130-226, but 297-327 at 256 KiB against 255-276, 637-668 at 1 MiB
// against 426-476 and 1180-1388 at 4 MiB against 842-873 (a rank's whole buffer goes to
// one peer, so the rail's forwarding over NVLink is a step more for the same bytes). On
// hosts of 3 (6 ranks under MPS) the two took less time in 8 cells each of 16 up to 1 MiB.
func railAuto(l collectives.Layout) (min, max int64) {
	if portstaged.ManyPerHost(l) {
		return 0, algo.HostStagedAutoMax
	}
	return 0, 64 << 10
}
