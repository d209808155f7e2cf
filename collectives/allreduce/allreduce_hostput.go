package allreduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
)

// allreduce hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSAllreduce mode, a one shot for small
// messages where some hosts have several ranks: block 0 copies my whole input into my
// host-resident outbox and puts it, with a signal, into every network peer's host-resident
// scratch, and writes it over NVLink straight into the GPU-memory scratch of my host's
// other ranks; every rank then reduces all the inputs in rank order. hostoneshot does the
// same where no pair uses CUDA IPC and stays automatic there; railput takes hosts of
// portstaged.RailAutoLocal ranks or more, hosts whose ranks share GPUs, and the larger
// messages where it fits (portstaged.RailAuto); hier, which crosses the network twice a
// launch, keeps the largest.
func init() {
	portstaged.RegisterHostAs("allreduce", portstaged.PSAllreduce,
		"host-resident buffers between hosts (NVLink to my host's ranks): my input to every peer, every rank reduces; small messages",
		familyRecord(HostPutNumber, hostPutAuto, func(l collectives.Layout) bool {
			return l.AcrossNetwork() && !l.NetworkOnly() && !portstaged.RailAuto(l)
		}))
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

// hostPutAuto is the size range where -k auto gives allreduce hostput: up to
// hostPutRailMax where railput fits (it takes the larger messages there), else up to
// hostPutAutoMax.
func hostPutAuto(l collectives.Layout) (min, max int64) {
	if l.Rails() {
		return 0, hostPutRailMax
	}
	return 0, hostPutAutoMax
}

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
