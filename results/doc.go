// Package results formats benchmark results the way nccl-tests does, so that
// scripts written for nccl-tests keep working on mscclpp-bench output.
//
// It provides:
//
//   - bus-bandwidth arithmetic (BusBwFactor, AlgBw, BusBw);
//   - nccl-tests' fixed-width number formatting (FormatFloat, FormatWrong);
//   - a streaming text printer (TextPrinter) that reproduces the nccl-tests
//     stdout layout byte for byte, plus '#' comment extensions (algorithm
//     markers, notes) and a ping-pong table of our own;
//   - JSON output compatible with nccl-tests' -J files (format version 3),
//     and a reader that accepts both our files and nccl-tests' (Report,
//     WriteJSON, ReadJSON);
//   - a summary table naming the fastest algorithm per message size
//     (WriteBestSummary).
//
// Everything here is pure Go: no cgo, GPU or MPI. Deciding which rank prints
// is up to the caller; the printers only write to an io.Writer.
package results
