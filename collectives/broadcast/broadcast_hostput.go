package broadcast

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
)

// broadcast hostput: the port-staged family's host-resident algorithm
// (collectives/family/portstaged, host_staged.go) in PSBroadcast mode: messages between
// ranks over a network transport, the ranks of one host over NVLink. Unlike the family's
// other hostputs it takes messages of up to HostPutMax, whose segments over 4 MiB the
// root's kernel puts in 4 MiB chunks while it copies the next (host_staged.cu).
func init() {
	portstaged.RegisterHostAs("broadcast", portstaged.PSBroadcast,
		"host-resident buffers between hosts (NVLink to my host's ranks): the root puts its buffer from host memory into every peer's scratch; messages to 64 MiB",
		func(a *collectives.Algorithm) {
			a.MaxBytes = HostPutMax
			a.AutoMax = 0
			a.AutoSizes = hostPutAuto
		})
}

// HostPutMax is the largest message broadcast hostput takes. Its slots are the message
// itself above 4 MiB, so a rank holds 4 x the run's largest message of pinned host memory,
// up to 256 MiB (one outbox slot and one scratch slot, two halves each), and on hosts of
// several ranks as much GPU memory again for its host's peers.
const HostPutMax = 64 << 20

// hostPutAuto is the size range where -k auto gives broadcast hostput: every size it takes
// where no pair uses CUDA IPC, up to the family's automatic largest elsewhere. Measured on
// one H200 as 2 simulated hosts of one rank under MPS, 2026-11-29, -k hostput and portput
// alternating, -b 4M -e 64M -f 2 -n 10 -w 3, two rounds, out of place: hostput 289-282 µs
// at 4 MiB against portput's 700-686, 369-399 at 8 MiB against 1031-988, 901-799 at 16
// MiB against 1655-1504, 3758-3342 at 64 MiB against 4898-4424 (docs/performance.md,
// "broadcast hostput to 64 MiB"). Hosts of several ranks were not measured above 4 MiB.
func hostPutAuto(l collectives.Layout) (min, max int64) {
	if l.NetworkOnly() {
		return 0, HostPutMax
	}
	return 0, algo.HostStagedAutoMax
}
