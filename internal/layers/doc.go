// Package layers names the layers the repository's folders form, top to bottom, and its
// test checks that no package imports one from a higher layer (tests included):
//
//	top        cmd/...                 binaries, their CLI, the worker and its glue
//	work       collectives, pingpong,  what a benchmark or report does
//	           acceptance, compare, plot
//	transport  channels, bootstrap/... how ranks find and reach each other
//	ground     kernels/..., results,   devices, kernels' declarations, formats, helpers
//	           internal/...
//
// Packages of one layer may import each other (Go forbids cycles). Go's internal rule
// keeps the top's own packages (cmd/internal/cli, cmd/mscclpp-bench-gpu/internal/...)
// out of reach of everything outside cmd/.
package layers

// Module is the module path the layers are named under.
const Module = "github.com/mscclpp-bench/mscclpp-bench"

// Layers lists the layers from the ground up, each as the module-relative path prefixes of
// its packages (a prefix matches the package itself and every package below it).
var Layers = []struct {
	Name     string
	Prefixes []string
}{
	{"ground", []string{"internal", "kernels", "results"}},
	{"transport", []string{"bootstrap", "channels"}},
	{"work", []string{"collectives", "pingpong", "acceptance", "compare", "plot"}},
	{"top", []string{"cmd"}},
}

// Of returns the index in Layers of the package at module-relative path rel, or -1 when
// no layer claims it.
func Of(rel string) int {
	for i, l := range Layers {
		for _, p := range l.Prefixes {
			if rel == p || len(rel) > len(p) && rel[:len(p)+1] == p+"/" {
				return i
			}
		}
	}
	return -1
}
