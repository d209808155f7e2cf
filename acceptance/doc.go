// Package acceptance is the GPU-free half of mscclpp-bench's hardware-acceptance mode: the
// thresholds a node must meet (Spec, built in per GPU model or read from a YAML or JSON
// file), the figures the GPU side measured (Figures), their comparison (Evaluate), and the
// verdict as a table, a one-line summary and a JSON report.
//
// The GPU side discovers the node, measures every rank pair and a few collectives, fills a
// Figures and hands it to Evaluate with the Spec chosen by DefaultSpec or LoadSpec:
//
//	spec, err := acceptance.DefaultSpec(gpuName) // or acceptance.LoadSpec(path, base)
//	...
//	checks := acceptance.Evaluate(spec, figures)
//	err = acceptance.WriteTable(os.Stdout, checks)
//	if !acceptance.Passed(checks) {
//		return errors.New(acceptance.Summary(checks))
//	}
//
// Nothing here needs cgo, a GPU or MPI.
package acceptance
