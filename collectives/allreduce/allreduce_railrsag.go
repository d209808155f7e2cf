package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
)

// allreduce railrsag: a reduce-scatter and then an all-gather of its result, both the
// port-staged family's railput (collectives/family/portstaged, host_rail.go), two launches
// on the stream. The reduce-scatter sums a host's chunks for a rank on that host first and
// puts one partial per other host along the rail; the all-gather sends each reduced chunk
// once to each other host, forwarded there over NVLink. A rank's bytes on the network are
// then twice its chunk per other host, where railput's one shot sends its whole input: with
// 2 hosts of 2 ranks, half as many. A count that does not split into equal chunks runs
// railput's one shot. Automatic over the sizes of railRSAGAuto.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allreduce", Name: "railrsag", Number: RailRSAGNumber, AnyOffset: true,
		Doc:      "reduce-scatter then all-gather along rails through host-resident buffers, each host's sum of a chunk once per rail; small messages",
		MinRanks: 4, Needs: collectives.Rails, MaxBytes: algo.HostStagedMax,
		AutoSizes: railRSAGAuto, AutoPriority: 9, AutoOn: collectives.Layout.Hierarchical, // hier's is 10
		New: NewAllreduceRailRSAG,
	})
}

// RailRSAGNumber is allreduce railrsag's number.
const RailRSAGNumber = 11

// railRSAGAutoMin is the smallest message -k auto gives allreduce railrsag (railput below).
// Measured on 4×H100 as 2 simulated hosts of 2 ranks (a GPU each), 2026-11-27, `-k
// railput`, `-k railrsag` and `-k hier` alternating, -b 64K -e 4M -f 2 -n 30, three rounds,
// out of place: railrsag 232-266 µs at 512 KiB against railput's 272-294 and hier's
// 421-457, 335-410 at 1 MiB against 511-604 and 549-680, 556-651 at 2 MiB against 732-832
// and 913-1132, 773-1541 at 4 MiB against 1153-1410 and 1399-1546 (less time than railput
// in two rounds of three there); at 64-256 KiB railput took 0-16 µs less, and from 64 B to
// 32 KiB railrsag's two launches took 93-105 µs, twice railput's.
const railRSAGAutoMin = 512 << 10

// railRSAGAuto is the size range where -k auto gives allreduce railrsag: from
// railRSAGAutoMin to the family's largest automatic message on hosts of fewer than
// portstaged.RailAutoLocal ranks (hosts of 3 ranks, and more than 2 hosts of 2, were not
// measured; they take it by the same count of bytes), never on larger hosts (hier there).
func railRSAGAuto(l collectives.Layout) (min, max int64) {
	if portstaged.ManyPerHost(l) {
		return 0, 0
	}
	return railRSAGAutoMin, algo.HostStagedAutoMax
}

// NewAllreduceRailRSAG sets allreduce's railrsag algorithm up on env.
func NewAllreduceRailRSAG(env *collectives.Env) (collectives.Instance, error) {
	return newStagedRSAG(env, portstaged.NewRailStage, portstaged.NewRailStage)
}
