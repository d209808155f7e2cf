// Package harness runs any registered collective as nccl-tests does: the size sweep,
// warm-up, timed iterations (with CUDA graphs, -z blocking modes, -I per-iteration times),
// verification of every rank's output, the repeat check (--repeat-check) and the report's
// rows. It knows no collective by name: a collective supplies byte counts, expected values
// and its bus factor through collectives.Collective, and its algorithms through the
// registry.
package harness
