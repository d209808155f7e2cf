// Package reducescatter is the reduce-scatter collective: every rank receives its block of
// the reduction of all ranks' buffers. reducescatter.go is its record (byte counts, bus
// factor, expected values); each reducescatter_<algorithm>.go registers one algorithm
// (ll16, read, portput), whose kernels are in the .cu file beside it (or reducescatter.cu)
// with their parameters declared in *_params.go. `make` compiles the .cu files into
// fatbin/, which embed.go hands to the kernel loader. Portput comes from the port-staged
// family (collectives/family/portstaged), registered by reducescatter_portput.go. With one
// rank every collective runs the registry's local copy.
package reducescatter
