// Package reduce is the reduce collective: the root receives the reduction of all ranks'
// buffers (-r). reduce.go is its record (byte counts, bus factor, expected values); each
// reduce_<algorithm>.go registers one algorithm (ll16, read, portput), whose kernels are
// in the .cu file beside it (or reduce.cu) with their parameters declared in *_params.go.
// `make` compiles the .cu files into fatbin/, which embed.go hands to the kernel loader.
// Portput comes from the port-staged family (collectives/family/portstaged), registered by
// reduce_portput.go. With one rank every collective runs the registry's local copy.
package reduce
