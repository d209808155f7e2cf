// Package allgather is the all-gather collective: every rank receives every rank's buffer.
// allgather.go is its record (byte counts, bus factor, expected values); each
// allgather_<algorithm>.go registers one algorithm (ll16, put, get, port, blockput,
// portput, hier, hostput), whose kernels are in the .cu file beside it (or allgather.cu)
// with their parameters declared in *_params.go. `make` compiles the .cu files into
// fatbin/, which embed.go hands to the kernel loader. The hier algorithm's kernels are the
// hierarchical family's (collectives/family/hier), the hostput algorithm's the port-staged
// family's (collectives/family/portstaged). With one rank every collective runs the
// registry's local copy.
package allgather
