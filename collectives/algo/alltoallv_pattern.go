package algo

import "github.com/mscclpp-bench/mscclpp-bench/collectives"

// The alltoallv pattern, shared by alltoallv and the port-staged family's alltoallv mode.

// AlltoallvPeerBytes is the bytes rank from sends rank to when the ranks' segments add up
// to total bytes: nccl-tests' distance-weighted pattern at its default spread (1), the
// share distance/(n(n-1)/2) of total for a rank `distance` ranks ahead, rounded down to 16
// bytes (collectives/alltoallv/alltoallv.cu computes the same, in the same floating-point
// steps).
func AlltoallvPeerBytes(from, to, nranks int, total int64) int64 {
	if nranks == 1 {
		return total &^ 15
	}
	distance := (to - from + nranks) % nranks
	sum := int64(nranks) * int64(nranks-1) / 2
	return int64(uint64(float64(distance)*float64(total)/float64(sum))) &^ 15
}

// AlltoallvTotal is the total that sizes launch a's pattern: nranks of alltoall's chunks.
func AlltoallvTotal(a *collectives.LaunchArgs, nranks int) int64 {
	return a.Param * int64(nranks) * int64(a.Type.Size)
}
