// Package collectives says what a collective and an algorithm are, and keeps the registry
// of both. It is shaped like nccl-tests: a harness (package harness) runs any collective,
// and each collective supplies only what differs (byte counts, expected values, its
// bus-bandwidth factor) in a folder of its own below this one, collectives/<name>, which
// also holds its algorithms, their .cu kernels and their kernel parameters.
// Collectives and algorithms register themselves from their packages' init functions
// (RegisterCollective, Register; collectives/all links every one); -k auto picks an
// algorithm per size, rank count and layout (registry.go, layout.go).
//
// Beside the records this package holds what every algorithm is given (Env, LaunchArgs,
// Layout, Datatype, Op), the Verifier that fills and checks buffers with kernels/verify.cu's
// kernels, and the one-rank fallback every collective gets (local.go). The toolkit that
// algorithms share is collectives/algo; algorithms several collectives register live in
// collectives/family.
//
// The package drives the GPU only through device.GPU and channels.Mesh, so everything but
// the kernels themselves (selection, byte counts, expected values, bandwidth) is tested on
// the CPU.
package collectives
