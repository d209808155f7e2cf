// Package sendrecv is the send-receive collective: every rank sends its buffer to the next
// rank and receives the previous rank's. sendrecv.go is its record (byte counts, bus
// factor, expected values); each sendrecv_<algorithm>.go registers one algorithm (ll16,
// put, port, portput), whose kernels are in the .cu file beside it (or sendrecv.cu) with
// their parameters declared in *_params.go. `make` compiles the .cu files into fatbin/,
// which embed.go hands to the kernel loader. Portput comes from the port-staged family
// (collectives/family/portstaged), registered by sendrecv_portput.go. With one rank every
// collective runs the registry's local copy.
package sendrecv
