package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
)

// allreduce hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSAllreduce mode, a one shot: block 0
// copies my whole input into my host-resident outbox and puts it, with a signal, into
// every network peer's host-resident scratch, and writes it over NVLink straight into the
// GPU-memory scratch of my host's other ranks; every rank then reduces all the inputs in
// rank order (a message over 4 MiB round by round as it lands, where no peer sends over
// CUDA IPC). Messages to portstaged.WholeMax (64 MiB on 2 ranks, 4 MiB on more: every
// rank's scratch holds every rank's whole message). Automatic where some host has several
// ranks for small messages (hostoneshot does the same where no pair uses CUDA IPC and
// stays automatic there; railput takes hosts of portstaged.RailAutoLocal ranks or more,
// hosts whose ranks share GPUs, and the larger messages where it fits
// (portstaged.RailAuto); hier, which crosses the network twice a launch, keeps the
// largest), and on two ranks where no pair uses CUDA IPC above 4 MiB (hostPutTwoMin to
// hostPutTwoMax), where it sends as many bytes as hostrsag's two launches in one.
func init() {
	portstaged.RegisterHostAs("allreduce", portstaged.PSAllreduce,
		"host-resident buffers between hosts (NVLink to my host's ranks): my input to every peer, every rank reduces; messages to 64 MiB on 2 ranks",
		func(a *collectives.Algorithm) {
			a.MaxBytes, a.MaxBytesOn = portstaged.StreamedMax, portstaged.WholeMax
			familyRecord(HostPutNumber, hostPutAuto, hostPutOn)(a)
		})
}

// hostPutOn says where -k auto may give allreduce hostput: where some host has several
// ranks but railput is not automatic, and on two ranks where no pair uses CUDA IPC.
func hostPutOn(l collectives.Layout) bool {
	if l.NetworkOnly() {
		return l.NRanks() == 2
	}
	return l.AcrossNetwork() && !portstaged.RailAuto(l)
}

// familyRecord changes the port-staged family's record of hostput or railput into
// allreduce's: its number, and automatic over the sizes auto gives for each layout ahead
// of hier; on, if not nil, replaces the layouts where auto takes it.
func familyRecord(number int, auto func(collectives.Layout) (int64, int64), on func(collectives.Layout) bool) func(*collectives.Algorithm) {
	return func(a *collectives.Algorithm) {
		a.Number, a.AutoSizes, a.AutoPriority = number, auto, 9 // hier's is 10
		if on != nil {
			a.AutoOn = on
		}
	}
}

// HostPutNumber is allreduce hostput's number (the family's #7 is allreduce portoneshot).
const HostPutNumber = 9

// hostPutAuto is the size range where -k auto gives allreduce hostput (on the layouts of
// hostPutOn): from hostPutTwoMin to hostPutTwoMax where no pair uses CUDA IPC, up to
// hostPutRailMax where railput fits (it takes the larger messages there), else up to
// hostPutAutoMax.
func hostPutAuto(l collectives.Layout) (min, max int64) {
	switch {
	case l.NetworkOnly():
		return hostPutTwoMin, hostPutTwoMax
	case l.Rails():
		return 0, hostPutRailMax
	}
	return 0, hostPutAutoMax
}

// hostPutTwoMin and hostPutTwoMax bound the messages -k auto gives allreduce hostput on
// two ranks where no pair uses CUDA IPC (hostoneshot to 1 MiB, hostrsag above it and
// above hostPutTwoMax). Measured on one H200 as 2 simulated hosts of one rank under MPS,
// 2026-11-29, -k hostput (its limit raised by a switch) and -k hostrsag in turn, -n 10
// -w 3, three rounds of -b 8M -e 64M -f 2 and two of -b 2M -e 32M -f 2, out of place: the
// one shot took less time at 8 MiB in all five rounds (1108-1260 µs against 1554-1680), at
// 16 MiB in all five (1948-2276 against 2269-2499), at 32 MiB in four (3456-4097 against
// 3727-4055), at 64 MiB in one of three, at 4 MiB in neither of two (docs/performance.md,
// "reduce and allreduce hostput to 64 MiB").
const (
	hostPutTwoMin = algo.HostStagedMax + 1
	hostPutTwoMax = 32 << 20
)

// hostPutAutoMax is the largest message -k auto gives allreduce hostput where railput
// does not fit (hosts of unequal rank counts). Measured on 4xH100 as 2 simulated hosts of
// 2 ranks (a GPU each), -k all -b 8 -e 4M -f 4, two runs, 2026-11-27, out of place:
// hostput 46-72 us from 8 B to 32 KiB against hier's 110-173, 358-378 us at 512 KiB
// against 541-567; at 2 MiB each within the other's spread.
const hostPutAutoMax = 1 << 20

// hostPutRailMax is the largest message -k auto gives allreduce hostput where railput
// fits: on 2 simulated hosts of 2 ranks hostput took 39-58 µs from 8 B to 32 KiB against
// railput's 47-65, and railput the less time from 64 KiB (railPutAuto).
const hostPutRailMax = 32 << 10
