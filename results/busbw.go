package results

import (
	"fmt"
	"strings"
)

// CollectiveKey maps the accepted spellings of a collective name ("all_reduce",
// "allreduce", "AllReduce", "all_reduce_perf") to one key.
func CollectiveKey(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimSuffix(n, "_perf")
	return strings.NewReplacer("_", "", "-", "").Replace(n)
}

// busFactors are the registered collectives' bus-bandwidth factors, by CollectiveKey.
var busFactors = map[string]func(nranks int) float64{}

// RegisterBusFactor records collective's bus-bandwidth factor on nranks ranks, nccl-tests'
// (doc/PERFORMANCE.md): 2(n-1)/n for all_reduce; (n-1)/n for all_gather, reduce_scatter,
// alltoall, alltoallv, gather and scatter; 1 for broadcast, reduce, sendrecv and
// hypercube. Each collective keeps its own (collectives.Collective.BusFactor) and
// registering it registers the factor here too, so that reports of any run (nccl-tests'
// files included) use the same one. It panics on a name registered twice: a programming
// error found by the first test run.
func RegisterBusFactor(collective string, factor func(nranks int) float64) {
	key := CollectiveKey(collective)
	if _, dup := busFactors[key]; dup {
		panic(fmt.Sprintf("results: bus factor of %q registered twice", collective))
	}
	busFactors[key] = factor
}

// KnownCollective reports whether a bus factor is registered for the named collective
// (see BusBwFactor for the accepted spellings).
func KnownCollective(collective string) bool {
	_, ok := busFactors[CollectiveKey(collective)]
	return ok
}

// BusBwFactor returns the factor that turns algorithm bandwidth into bus bandwidth for a
// collective run over nranks ranks: the registered one (RegisterBusFactor). Names are
// matched case-insensitively, with or without underscores and with or without
// nccl-tests' "_perf" suffix ("all_reduce", "allreduce" and "all_reduce_perf" are the
// same). An unknown collective gets factor 1, so its bus bandwidth equals its algorithm
// bandwidth; use KnownCollective to reject such names up front. nranks below 1 is treated
// as 1 (factor 0 for the (n-1)/n families, as nccl-tests reports for a single rank).
func BusBwFactor(collective string, nranks int) float64 {
	f, ok := busFactors[CollectiveKey(collective)]
	if !ok {
		return 1
	}
	return f(max(nranks, 1))
}

// AlgBw returns the algorithm bandwidth in GB/s (1 GB = 1e9 bytes) for moving
// bytes in seconds, exactly as nccl-tests computes it. A non-positive
// duration yields 0 rather than an infinity.
func AlgBw(bytes int64, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return float64(bytes) / 1.0e9 / seconds
}

// BusBw returns algBw scaled by BusBwFactor(collective, nranks).
func BusBw(algBw float64, collective string, nranks int) float64 {
	return algBw * BusBwFactor(collective, nranks)
}
