package broadcast

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
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
			a.MaxBytes, a.AutoMax = HostPutMax, HostPutMax
		})
}

// HostPutMax is the largest message broadcast hostput takes, and -k auto gives it: every
// size it takes (where railput does not take it first). It has one outbox slot and one
// scratch slot whatever the ranks (two halves each), four times the run's largest message
// up to HostPutMax, so a rank holds 16 x -e of pinned host memory, at most 256 MiB, and
// where some pairs use CUDA IPC 2 x the slot (up to 128 MiB) of GPU memory for its host's
// peers. Measured on one H200 under MPS, 2026-11-29, -b 1M -e 64M -f 2 -n 10 -w 3, two
// rounds, out of place, against -k portput in turn (docs/performance.md, "broadcast hostput
// to 64 MiB"): as 2 simulated hosts of one rank (-k auto), 214-318 µs at 4 MiB against
// portput's 633-652, 413-422 at 8 MiB against 957-1030, 3533-3702 at 64 MiB against
// 4357-4931; as 2 hosts of 2 (-k hostput), 992-1002 at 8 MiB against 1763-1846, 7512-8071
// at 64 MiB against 10318-10774. Other layouts are taken to behave alike, not measured.
// Above 64 MiB portput takes it, whose scratch is in GPU memory.
const HostPutMax = 64 << 20
