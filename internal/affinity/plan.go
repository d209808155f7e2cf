package affinity

import (
	"fmt"
	"slices"
)

// Placement says where a rank's proxy thread runs.
type Placement struct {
	// CPUs the proxy thread is pinned to; empty means it keeps the rank's own binding.
	CPUs Set
	// Shared is set when no CPU was free: the proxy shares the rank's single CPU and must
	// yield while idle.
	Shared bool
	// Share is this rank's part of a binding that several ranks of the host hold alike
	// (mpirun binds to a socket or NUMA node from 3 ranks on, or not at all): the proxy
	// takes its first CPU, the helper threads the rest. Empty otherwise.
	Share Set
	// Reason is a few words for the report.
	Reason string
}

// String is the report's form: "16 (own CPU)".
func (p Placement) String() string {
	if len(p.CPUs) == 0 {
		return p.Reason
	}
	return fmt.Sprintf("%v (%s)", p.CPUs, p.Reason)
}

// Plan places the proxy of the index-th rank of a host. ranks holds the CPU binding of every
// rank of the host, ranks[index] this one's. Where several ranks hold the same binding of
// two or more CPUs, the binding is cut into one equal part per rank (ShareOf) and the proxy
// pinned to the first CPU of this rank's part: left to the OS, every rank's spinning proxy,
// main thread and network threads competed for the same CPUs (4 ranks bound to one 16-CPU
// socket took 250-350 µs for a small sendrecv across two simulated hosts, 90-100 µs with one
// core each; one H100 under MPS, 2026-11-25). A rank bound alone to two or more CPUs keeps
// its proxy inside its binding: the OS schedules the proxy and the main thread on different CPUs.
// A rank bound to a single CPU gets a CPU that no rank of the host is bound to, preferring
// those near the GPU, one per rank in turn; with none free, the proxy shares the rank's CPU
// (and should yield while idle).
func Plan(ranks []Set, index int, h Host) Placement {
	mine := ranks[index]
	if share := ShareOf(ranks, index); len(share) >= 2 {
		return Placement{CPUs: share[:1], Share: share, Reason: fmt.Sprintf("own CPU of the rank's share %v", share)}
	}
	if len(mine) >= 2 {
		return Placement{Reason: "within the rank's CPUs"}
	}
	free := Minus(h.Allowed, Union(ranks...))
	pool := Intersect(free, h.Near)
	if len(pool) == 0 {
		pool = free
	}
	if len(pool) == 0 {
		return Placement{Shared: true, Reason: "shares the rank's CPU: no free CPU"}
	}
	// The n-th single-CPU rank of the host takes the n-th free CPU, so that ranks do not
	// pile their proxies onto one CPU.
	n := 0
	for i := 0; i < index; i++ {
		if len(ranks[i]) < 2 {
			n++
		}
	}
	return Placement{CPUs: Set{pool[n%len(pool)]}, Reason: "own CPU"}
}

// ShareOf returns the index-th rank's part of its binding when other ranks of the host hold
// the same binding: the binding's CPUs cut into as many consecutive, equal parts as ranks hold
// it, the part by the rank's order among them. Nil when no other rank holds the same binding.
func ShareOf(ranks []Set, index int) Set {
	mine := ranks[index]
	holders, order := 0, 0
	for i, r := range ranks {
		if slices.Equal(r, mine) {
			if i < index {
				order++
			}
			holders++
		}
	}
	if holders < 2 {
		return nil
	}
	n := len(mine)
	return mine[order*n/holders : (order+1)*n/holders]
}
