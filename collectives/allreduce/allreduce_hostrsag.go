package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
)

// allreduce hostrsag: railrsag's two launches with hostput for rails (the port-staged
// family's host-resident reduce-scatter into my chunk of the output, then its all-gather
// of that chunk; allreduce_staged_rsag.go), for jobs where some pair talks over a network.
// With one rank per host a rank sends each peer its chunk of my input and then my reduced
// chunk, 2/n of the message each, where hostoneshot sends the whole message and portrsag
// stages every byte through the copy engine at both ends. Messages to
// portstaged.StreamedMax: a chunk over 4 MiB goes in rounds that the receivers reduce or
// copy as they land (host_staged.cu, "Streaming"). A count that does not split into equal
// chunks runs hostput's one shot to 4 MiB, above it for the few elements left over.
// Automatic over the sizes of hostRSAGAuto.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allreduce", Name: "hostrsag", Number: HostRSAGNumber, AnyOffset: true,
		Doc:      "reduce-scatter then all-gather through host-resident buffers between hosts (NVLink to my host's ranks); messages to 64 MiB",
		MinRanks: 2, Needs: collectives.SomeNetwork, MaxBytes: portstaged.StreamedMax,
		AutoSizes: hostRSAGAuto, AutoPriority: 11, AutoOn: collectives.Layout.NetworkOnly, // hostoneshot's is 12, portrsag's 20
		New: NewAllreduceHostRSAG,
	})
}

// HostRSAGNumber is allreduce hostrsag's number.
const HostRSAGNumber = 12

// hostRSAGAuto is the size range where -k auto gives allreduce hostrsag where no pair
// uses CUDA IPC: above hostoneshot's largest automatic message, to its largest, on a
// power-of-two rank count. On other counts the sweep's power-of-two sizes never split
// into equal chunks, so hostrsag would run hostput's one shot, which sends the whole
// message to every peer (about 8 MiB a rank at 4 MiB on 3 hosts, where portrsag sends 5.3).
// Above 4 MiB, measured on one H200 as 2 simulated hosts of one rank under MPS,
// 2026-11-29, -k hostrsag and -k portrsag in turn, -b 4M -e 64M -f 2 -n 10 -w 3, two
// rounds: hostrsag took less time at every size, in and out of place (out of place 1499
// and 1529 µs at 8 MiB against 1654 and 1733, 2333 and 2259 at 16 MiB against 2628 and
// 2549, 3553 and 3751 at 32 MiB against 4165 and 3979, 6680 and 7491 at 64 MiB against
// 8110 and 7698; docs/performance.md, "allreduce hostrsag to 64 MiB").
func hostRSAGAuto(l collectives.Layout) (min, max int64) {
	if n := l.NRanks(); n&(n-1) != 0 {
		return 0, 0
	}
	return hostRSAGAutoMin, portstaged.StreamedMax
}

// hostRSAGAutoMin is the smallest message -k auto gives allreduce hostrsag. Measured on
// 2xH100 as 2 simulated hosts of one rank, 2026-11-27, -k hostrsag, portrsag and
// hostoneshot alternating, -b 256K -e 4M -f 2 -n 30, three rounds, out of place: hostrsag
// 1131-1722 µs at 2 MiB against portrsag's 1982-2228, 1408-2133 at 4 MiB against
// 2277-2857; at 1 MiB 603-1182 against hostoneshot's 538-810 (less time in one round of
// three), so hostoneshot keeps the sizes it takes.
const hostRSAGAutoMin = algo.HostAllreduceMax + 1

// NewAllreduceHostRSAG sets allreduce's hostrsag algorithm up on env.
func NewAllreduceHostRSAG(env *collectives.Env) (collectives.Instance, error) {
	return newStagedRSAG(env, hostStage, hostWhole)
}

// hostWhole is hostrsag's one shot: hostput's, with slots for messages to
// algo.HostStagedMax.
func hostWhole(env *collectives.Env, mode portstaged.PortStagedMode) (*portstaged.Stage, error) {
	return portstaged.NewHostStage(env, mode, 0)
}

// hostStage is a hostput stage of hostrsag: a launch's segments are chunks of the message,
// a rank count's share of at most the largest message, so its host-resident slots are
// that large instead of the whole message (each of the two stages and the one shot holds
// two halves of outbox and scratch slots in pinned host memory: at -e 64 MiB under 256
// MiB a stage on any rank count).
func hostStage(env *collectives.Env, mode portstaged.PortStagedMode) (*portstaged.Stage, error) {
	return portstaged.NewHostStage(env, mode, mode.PairBytes(algo.Limit(portstaged.StreamedMax, env.MaxBytes), env.NRanks))
}
