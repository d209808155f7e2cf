// Package alltoall is the all-to-all collective: every rank sends a distinct block of its
// buffer to each rank. alltoall.go is its record (byte counts, bus factor, expected
// values); each alltoall_<algorithm>.go registers one algorithm (ll16, blockput, port,
// portput), whose kernels are in the .cu file beside it (or alltoall.cu) with their
// parameters declared in *_params.go. `make` compiles the .cu files into fatbin/, which
// embed.go hands to the kernel loader. Portput comes from the port-staged family
// (collectives/family/portstaged), registered by alltoall_portput.go. With one rank every
// collective runs the registry's local copy.
package alltoall
