// Package portstaged is the port-staged family: one schedule (port_staged_device.cuh,
// run by port_staged.cu's kernels) that runs, over port channels only, any collective but
// all-reduce and all-gather on any layout of ranks over hosts, each rank putting what each
// peer needs into that peer's scratch. A
// collective gets it as its portput algorithm by calling Register with its mode from its
// own folder (<name>_portput.go), and the same schedule through host-resident buffers
// (host_staged.cu, for small messages where some pairs talk over a network; NVLink to the
// peers of a rank's own host) as its hostput by calling RegisterHost (<name>_hostput.go),
// as all-gather does too.
package portstaged
