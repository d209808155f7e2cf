// Package gather is the gather collective: the root receives every rank's buffer, in rank
// order (-r). gather.go is its record (byte counts, bus factor, expected values); each
// gather_<algorithm>.go registers one algorithm (read, portput), whose kernels are in the
// .cu file beside it (or gather.cu) with their parameters declared in *_params.go. `make`
// compiles the .cu files into fatbin/, which embed.go hands to the kernel loader. Portput
// comes from the port-staged family (collectives/family/portstaged), registered by
// gather_portput.go. With one rank every collective runs the registry's local copy.
package gather
