package results

import "strings"

// CollectiveKey maps the accepted spellings of a collective name ("all_reduce",
// "allreduce", "AllReduce", "all_reduce_perf") to one key.
func CollectiveKey(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimSuffix(n, "_perf")
	return strings.NewReplacer("_", "", "-", "").Replace(n)
}

// busBwKind says how a collective's bus bandwidth relates to its algorithm
// bandwidth.
type busBwKind int

const (
	factorOne         busBwKind = iota // busbw == algbw
	factorNm1OverN                     // (n-1)/n
	factorTwoNm1OverN                  // 2(n-1)/n
)

var collectiveKinds = map[string]busBwKind{
	"allreduce":     factorTwoNm1OverN,
	"allgather":     factorNm1OverN,
	"reducescatter": factorNm1OverN,
	"alltoall":      factorNm1OverN,
	"alltoallv":     factorNm1OverN,
	"gather":        factorNm1OverN,
	"scatter":       factorNm1OverN,
	"broadcast":     factorOne,
	"reduce":        factorOne,
	"sendrecv":      factorOne,
	"hypercube":     factorOne,
}

// KnownCollective reports whether BusBwFactor has a specific formula for the
// named collective (see BusBwFactor for the accepted spellings).
func KnownCollective(collective string) bool {
	_, ok := collectiveKinds[CollectiveKey(collective)]
	return ok
}

// BusBwFactor returns the factor that turns algorithm bandwidth into bus
// bandwidth for a collective run over nranks ranks, following nccl-tests
// (doc/PERFORMANCE.md):
//
//	all_reduce                                   2(n-1)/n
//	all_gather, reduce_scatter, alltoall,
//	alltoallv, gather, scatter                   (n-1)/n
//	broadcast, reduce, sendrecv, hypercube       1
//
// Names are matched case-insensitively, with or without underscores and with
// or without nccl-tests' "_perf" suffix ("all_reduce", "allreduce" and
// "all_reduce_perf" are the same). An unknown collective gets factor 1, so
// its bus bandwidth equals its algorithm bandwidth; use KnownCollective to
// reject such names up front. nranks below 1 is treated as 1 (factor 0 for
// the (n-1)/n families, as nccl-tests reports for a single rank).
func BusBwFactor(collective string, nranks int) float64 {
	kind, ok := collectiveKinds[CollectiveKey(collective)]
	if !ok {
		return 1
	}
	n := float64(max(nranks, 1))
	switch kind {
	case factorTwoNm1OverN:
		return 2 * (n - 1) / n
	case factorNm1OverN:
		return (n - 1) / n
	default:
		return 1
	}
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
