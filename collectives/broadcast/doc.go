// Package broadcast is the broadcast collective: every rank receives the root's buffer
// (-r). broadcast.go is its record (byte counts, bus factor, expected values); each
// broadcast_<algorithm>.go registers one algorithm (ll16, read, port, portput), whose
// kernels are in the .cu file beside it (or broadcast.cu) with their parameters declared
// in *_params.go. `make` compiles the .cu files into fatbin/, which embed.go hands to the
// kernel loader. Portput comes from the port-staged family
// (collectives/family/portstaged), registered by broadcast_portput.go. With one rank every
// collective runs the registry's local copy.
package broadcast
