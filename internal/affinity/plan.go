package affinity

import "fmt"

// Placement says where a rank's proxy thread runs.
type Placement struct {
	// CPUs the proxy thread is pinned to; empty means it keeps the rank's own binding.
	CPUs Set
	// Shared is set when no CPU was free: the proxy shares the rank's single CPU and must
	// yield while idle.
	Shared bool
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
// rank of the host, ranks[index] this one's. A rank bound to two or more CPUs keeps its proxy
// inside its own binding: the OS schedules the proxy and the main thread on different CPUs.
// A rank bound to a single CPU gets a CPU that no rank of the host is bound to, preferring
// those near the GPU, one per rank in turn; with none free, the proxy shares the rank's CPU
// (and should yield while idle).
func Plan(ranks []Set, index int, h Host) Placement {
	mine := ranks[index]
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
