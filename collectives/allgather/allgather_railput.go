package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
)

// allgather railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSAllgather mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host. My chunk crosses the network once per
// other host instead of once per rank there, so -k auto takes it on every such layout, on
// hosts of 2 ranks too (the family takes railput from portstaged.RailAutoLocal ranks a
// host): measured on 4×H100 as 2 simulated hosts of 2 ranks, 2026-11-27, out of place,
// railput took 173-190 µs at 1 MiB against hostput's 418-445 and hier's 338-452, 666-780 at
// 4 MiB against 1102-1482 and 864-1069; from 128 B to 32 KiB, three rounds, the two took
// 45-59 µs in the round without the machine's slow spells, and hostput 105-532, railput
// 48-252 in the two with them. Hosts of 3 ranks, and hosts of 2 whose ranks share a GPU
// under MPS, were not measured; they take it for the same reason.
func init() {
	portstaged.RegisterRailAs("allgather", portstaged.PSAllgather,
		"rail routing through host-resident buffers: my chunk once to each other host, forwarded there over NVLink; small messages",
		func(a *collectives.Algorithm) { a.AutoOn = collectives.Layout.Hierarchical })
}
