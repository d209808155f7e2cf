// Package layers names the layers the repository's folders form, top to bottom, and its
// test checks that no package imports one from a higher layer (tests included):
//
//	top          cmd/..., scripts          binaries, their CLI, the worker and its glue;
//	                                       the tests of the shell scripts
//	work         harness, collectives/all, what a benchmark or report does: the harness
//	             pingpong, acceptance,     that runs any collective, the list of them all
//	             compare, plot
//	collective   collectives/<name>        one folder per collective: its record, its
//	                                       algorithms, their kernels
//	family       collectives/family/...    algorithms several collectives register
//	record       collectives, .../algo,    what a collective and an algorithm are, the
//	             .../collectivestest       registry, the toolkit algorithms share
//	transport    channels/...,             how ranks find and reach each other: the channels
//	             bootstrap/...             core, and beside it one package per transport
//	                                       (cudaipc, ethernet, ib), which imports the core
//	ground       kernels/..., results,     devices, kernels' declarations, formats, helpers
//	             internal/...
//
// A package belongs to the layer of the longest prefix that matches its path; a prefix
// ending in "/" matches only the packages below it (collectives/ claims every folder of
// collectives/ that no longer prefix names, so a new collective needs no edit here).
// Packages of one layer may import each other (Go forbids cycles), with one rule inside
// the transport layer: the channels core imports no package below channels/, and a
// transport's package (any package below channels/ but those of Helpers) imports no other
// package below channels/ but the core: a transport is one folder, which the core does not
// know and no other transport leans on. Go's internal rule keeps the top's own packages
// (cmd/internal/cli, cmd/mscclpp-bench-gpu/internal/...) out of reach of everything
// outside cmd/.
package layers

import "strings"

// Core is the module-relative path of the channels core.
const Core = "channels"

// Helpers are the packages below Core that are not transports: the list that links every
// transport into a program, and the tests' stand-ins.
var Helpers = []string{"channels/transports", "channels/channelstest"}

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
	{"record", []string{"collectives", "collectives/algo", "collectives/collectivestest"}},
	{"family", []string{"collectives/family"}},
	{"collective", []string{"collectives/"}},
	{"work", []string{"harness", "collectives/all", "pingpong", "acceptance", "compare", "plot"}},
	{"top", []string{"cmd", "scripts"}},
}

// matches says whether prefix p claims the package at rel: p itself and every package
// below it, or with a trailing "/" only those below it.
func matches(p, rel string) bool {
	if strings.HasSuffix(p, "/") {
		return len(rel) > len(p) && strings.HasPrefix(rel, p)
	}
	return rel == p || strings.HasPrefix(rel, p+"/")
}

// Of returns the index in Layers of the package at module-relative path rel (the layer of
// the longest prefix that claims it), or -1 when no layer claims it.
func Of(rel string) int {
	best, bestLen := -1, -1
	for i, l := range Layers {
		for _, p := range l.Prefixes {
			if matches(p, rel) && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}
