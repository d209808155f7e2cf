package affinity

// Helpers returns the CPUs for the helper threads of the index-th rank of a host: threads
// that block in socket calls and wait for staging copies (the Ethernet transport's senders
// and receivers). ranks and h are as for Plan.
//
// A rank bound to two or more CPUs keeps them (nil: the OS schedules the helpers within the
// rank's binding). A rank bound to a single CPU gets every CPU that no rank of the host is
// bound to, near the GPU first, less those the host's proxies are pinned to (each spins on
// its CPU) while any remain; the helpers then never wait for the rank's main thread. With
// no free CPU at all, nil: the helpers share the rank's CPU.
func Helpers(ranks []Set, index int, h Host) Set {
	if len(ranks[index]) >= 2 {
		return nil
	}
	free := Minus(h.Allowed, Union(ranks...))
	if len(free) == 0 {
		return nil
	}
	var proxies Set
	for i := range ranks {
		proxies = Union(proxies, Plan(ranks, i, h).CPUs)
	}
	for _, pool := range []Set{Intersect(free, h.Near), free} {
		if rest := Minus(pool, proxies); len(rest) > 0 {
			return rest
		}
	}
	return free
}

// CanSpin says whether a helper thread may poll instead of sleeping (the Ethernet control
// receiver's spin): only where it has a CPU that neither the rank's main thread nor its
// proxy needs. Not when the proxy shares the rank's CPU (p.Shared); yes when the helpers
// have CPUs of their own (helpers, from Helpers); otherwise (the helpers run within the
// rank's binding) only when that binding has at least 4 CPUs: the main thread and the
// proxy each spin on one.
func CanSpin(p Placement, helpers, own Set) bool {
	switch {
	case p.Shared:
		return false
	case len(helpers) > 0:
		return true
	}
	return len(own) >= 4
}

// ThreadCPUs is how many CPUs the helper threads of a host's ranks run on, beside those
// that the ranks' main threads and proxies keep busy (ranks as for Plan): the helpers'
// CPUs where there are some (Helpers), else the CPUs the ranks are bound to less two a
// rank; at least 1.
func ThreadCPUs(ranks []Set, helpers Set) int {
	if len(helpers) > 0 {
		return len(helpers)
	}
	return max(1, len(Union(ranks...))-2*len(ranks))
}
