package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
)

// allreduce railput: hostput's one shot with rail routing (collectives/family/portstaged,
// host_rail.go), for several hosts of several ranks each: a rank puts its whole input once
// to its rail peer on each other host, which forwards it over NVLink to its host's other
// ranks; every rank then reduces all the inputs in rank order. A pair of hosts exchanges
// one message per rail and launch instead of one per pair of ranks, and an input crosses
// the network once per other host instead of once per rank there. Automatic on every
// layout it fits, over the sizes of railPutAuto.
func init() {
	portstaged.RegisterRailAs("allreduce", portstaged.PSAllreduce,
		"host-resident buffers along rails: my input once to each other host's rail peer, forwarded over NVLink; every rank reduces; small messages",
		familyRecord(RailPutNumber, railPutAuto, collectives.Layout.Hierarchical))
}

// RailPutNumber is allreduce railput's number (the family's #8 is allreduce hostoneshot).
const RailPutNumber = 10

// railPutAuto is the size range where -k auto gives allreduce railput, from measurements
// on 4×H100 as 2 simulated hosts, 2026-11-27, out of place:
//   - hosts of portstaged.RailAutoLocal ranks or more, up to 64 KiB: with 4 ranks a host
//     (two a GPU under MPS; -k all -b 8 -e 4M -f 8, two runs) railput took 62-110 µs from
//     8 B to 32 KiB against hier's 110-142, and 255-293 at 256 KiB against 170-189;
//   - hosts of fewer ranks, above hostPutRailMax and below railRSAGAutoMin (railrsag from
//     there to the family's largest automatic message): with 2 ranks a host (a GPU each;
//     -k hostput, railput and hier alternating, -b 64K -e 4M -f 2 -n 30, two rounds)
//     railput took 275-305 µs at 512 KiB against hostput's 851-951 and hier's 844-1026,
//     744-750 at 1 MiB against 1301-2000 and 1110-1183, 1253-1469 at 4 MiB against
//     1729-2134 and 2253-2278 (railrsag took less from 512 KiB, railRSAGAutoMin); from 8 B
//     to 32 KiB (three rounds, -n 100) it took 47-65 µs against hostput's 39-58 in the
//     round without the machine's slow spells. Hosts of 3 ranks were not measured;
//   - where ranks share a GPU (Layout.SharedGPU) on hosts of fewer ranks, from 0: on one
//     H100 as 2 simulated hosts of 2 ranks under MPS, -k all -b 64 -e 16K -f 16, two
//     rounds, hostput took 333-521 µs against railput's 199-371.
func railPutAuto(l collectives.Layout) (min, max int64) {
	switch {
	case portstaged.ManyPerHost(l):
		return 0, 64 << 10
	case l.SharedGPU: // hostput is not automatic there (portstaged.RailAuto)
		return 0, railRSAGAutoMin - 1
	}
	return hostPutRailMax + 1, railRSAGAutoMin - 1
}
