package broadcast

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
)

// broadcast railput: hostput with rail routing (collectives/family/portstaged, host_rail.go)
// in PSBroadcast mode, for several hosts of several ranks each: the network only between
// ranks of equal local index, NVLink inside a host. The root's buffer crosses the network
// once per other host instead of once per rank there. Automatic over the sizes of
// railPutAuto.
func init() {
	portstaged.RegisterRailAs("broadcast", portstaged.PSBroadcast,
		"rail routing through host-resident buffers: the root's buffer once to each other host, forwarded there over NVLink; small messages",
		func(a *collectives.Algorithm) { a.AutoOn, a.AutoSizes = collectives.Layout.Rails, railPutAuto })
}

// railPutAuto is the size range where -k auto gives broadcast railput: every size the
// family takes automatically on the layouts where it takes railput for every collective
// (portstaged.RailAuto), and from RailPutAutoMin to RailPutAutoMax on hosts of fewer
// ranks, where hostput takes the other sizes.
func railPutAuto(l collectives.Layout) (min, max int64) {
	if portstaged.RailAuto(l) {
		return 0, algo.HostStagedAutoMax
	}
	return RailPutAutoMin, RailPutAutoMax
}

// RailPutAutoMin and RailPutAutoMax bound the broadcasts -k auto gives railput on hosts of
// fewer than portstaged.RailAutoLocal ranks. Measured on 4×H100 as 2 simulated hosts of 2
// ranks (a GPU each), 2026-11-28, -k hostput and railput alternating, three rounds, out of
// place. On one machine (-b 4K -e 1M -f 4 -n 50 -w 5) railput took 68-83 µs at 256 KiB
// against hostput's 99-212, while from 4 to 64 KiB hostput took 24-34 µs in the rounds
// without the machine's slow spells against railput's 28-39: the root's 256 KiB leave its
// host once instead of twice, and the forward over NVLink costs less. At 1 MiB the machines
// disagreed: railput 283-407 µs against 419-624 on that one, hostput 79-233 against
// 123-282 on the next (-b 1M -e 4M -f 2 -n 30 -w 5; 2 and 4 MiB either way there), so from
// 1 MiB hostput stays.
const (
	RailPutAutoMin = 256 << 10
	RailPutAutoMax = 1<<20 - 1
)
