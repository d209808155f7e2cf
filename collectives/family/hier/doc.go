// Package hier is the hierarchical family: algorithms for jobs on several hosts with
// several ranks each, which move data inside a host over memory channels and between hosts
// only along rails (the ranks of equal local index). It holds the family's kernels
// (hier.cu, declared in hier_params.go) and the helpers that group ranks into hosts and
// rails and make their channels; allgather and allreduce register their hier algorithms
// from their own folders with them.
package hier
