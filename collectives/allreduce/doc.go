// Package allreduce is the all-reduce collective: every rank receives the reduction of all
// ranks' buffers. allreduce.go is its record (byte counts, bus factor, expected values);
// each allreduce_<algorithm>.go registers one algorithm (ll8, ll16, ll16x2, rsag, port,
// portrsag, hier, portoneshot, hostoneshot, hostput, railput), whose kernels are in the
// .cu file beside it (or allreduce.cu) with their parameters declared in *_params.go.
// `make` compiles the .cu files into fatbin/, which embed.go hands to the kernel loader.
// The hier algorithm's kernels are the hierarchical family's (collectives/family/hier),
// hostput's and railput's the port-staged family's (collectives/family/portstaged). With
// one rank every collective runs the registry's local copy.
package allreduce
