package reducescatter

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
)

// reducescatter railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSReduceScatter mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host. A host's chunks for a rank are summed on
// that host first, by the rank's rail peer there, so a host's partial crosses the network
// once instead of each rank's chunk: -k auto takes it on hosts of 2 and 3 ranks too, at
// every size it takes (up to algo.HostStagedAutoMax). Measured on 4×H100 as 2 simulated
// hosts of 2 ranks (a GPU each), 2026-11-27, out of place: against the railput that
// forwarded each rank's segment and against hostput, alternating, -b 1K -e 4M -f 4 -n 50,
// three rounds, reducescatter 1 MiB 198-266 µs against 293-442 and 343-464, 4 MiB
// 606-1123 against 1121-2125 and 930-1708, reduce 4 MiB 453-793 against 790-1316 and
// 1089-1594. From 64 B to 64 KiB (-n 100, three rounds, hostput of both builds beside it)
// railput and hostput each took 46-60 µs (reduce 25-52) outside the machine's slow spells,
// and railput took less time than the faster hostput of its round in 15 of 21 cells of
// each collective up to 256 KiB: hostput ran in the spells (up to 334 µs) more often. Hosts
// of 3 ranks, and hosts of 2 sharing GPUs under MPS, were not measured.
func init() {
	portstaged.RegisterRailAs("reducescatter", portstaged.PSReduceScatter,
		"rail routing through host-resident buffers: each host's chunks for a rank summed on the host over NVLink, one partial per host along the rail; GPU reduction; small messages",
		func(a *collectives.Algorithm) {
			a.AutoOn = collectives.Layout.Hierarchical
		})
}
