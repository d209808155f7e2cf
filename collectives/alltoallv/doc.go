// Package alltoallv is the all-to-all-v collective: every rank sends each rank a segment
// of its own length (nccl-tests' distance-weighted pattern). alltoallv.go is its record
// (byte counts, bus factor, expected values); each alltoallv_<algorithm>.go registers one
// algorithm (read, portput), whose kernels are in the .cu file beside it (or alltoallv.cu)
// with their parameters declared in *_params.go. `make` compiles the .cu files into
// fatbin/, which embed.go hands to the kernel loader. Portput comes from the port-staged
// family (collectives/family/portstaged), registered by alltoallv_portput.go. With one
// rank every collective runs the registry's local copy.
package alltoallv
