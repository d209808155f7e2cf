// Package hypercube is the hypercube collective: all-gather by log2(n) pairwise exchanges
// (a power-of-two rank count). hypercube.go is its record (byte counts, bus factor,
// expected values); each hypercube_<algorithm>.go registers one algorithm (put, portput),
// whose kernels are in the .cu file beside it (or hypercube.cu) with their parameters
// declared in *_params.go. `make` compiles the .cu files into fatbin/, which embed.go
// hands to the kernel loader. Portput comes from the port-staged family
// (collectives/family/portstaged), registered by hypercube_portput.go. With one rank every
// collective runs the registry's local copy.
package hypercube
