package layers

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestNoImportRunsUp lists every package of the module (with the GPU suite's build tag, and
// with its tests' imports) and fails on an import from a lower layer to a higher one, and
// on a package that no layer claims.
func TestNoImportRunsUp(t *testing.T) {
	const format = `{{.ImportPath}}|{{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`
	out, err := exec.Command("go", "list", "-tags", "gpu", "-f", format, Module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, imports, _ := strings.Cut(line, "|")
		from := strings.TrimPrefix(strings.TrimPrefix(path, Module), "/")
		lf := Of(from)
		if lf < 0 {
			t.Errorf("%s belongs to no layer: add it to Layers", from)
			continue
		}
		pkgs++
		for _, imp := range strings.Fields(imports) {
			to, ok := strings.CutPrefix(imp, Module+"/")
			if !ok {
				continue
			}
			if lt := Of(to); lt > lf {
				t.Errorf("%s (%s) imports %s (%s), a higher layer", from, Layers[lf].Name, to, Layers[lt].Name)
			}
		}
	}
	if pkgs < 20 {
		t.Fatalf("go list found %d packages; the module has more", pkgs)
	}
}

// TestTransportsAreFolders lists the core and the packages below it (their own imports,
// not their tests') and fails when the core imports a package below it, or a transport's
// package imports another package below channels/ than the core.
func TestTransportsAreFolders(t *testing.T) {
	const format = `{{.ImportPath}}|{{join .Imports " "}}`
	out, err := exec.Command("go", "list", "-tags", "gpu", "-f", format, Module+"/"+Core+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	transports := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, imports, _ := strings.Cut(line, "|")
		from := strings.TrimPrefix(strings.TrimPrefix(path, Module), "/")
		if slices.Contains(Helpers, from) {
			continue
		}
		if from != Core {
			transports++
		}
		for _, imp := range strings.Fields(imports) {
			to, ok := strings.CutPrefix(imp, Module+"/")
			if !ok || !strings.HasPrefix(to, Core+"/") {
				continue
			}
			if from == Core {
				t.Errorf("the core (%s) imports %s: it must name no transport", Core, to)
			} else {
				t.Errorf("the transport %s imports %s: a transport leans on the core only", from, to)
			}
		}
	}
	if transports < 3 {
		t.Fatalf("go list found %d transports below %s; there are at least cudaipc, ethernet and ib", transports, Core)
	}
}

func TestOf(t *testing.T) {
	for _, c := range []struct {
		rel  string
		want string
	}{
		{"cmd/internal/cli", "top"}, {"collectives", "record"}, {"channels", "transport"},
		{"collectives/algo", "record"}, {"collectives/family/hier", "family"},
		{"collectives/allreduce", "collective"}, {"collectives/newone", "collective"},
		{"collectives/all", "work"}, {"collectives/allx", "collective"}, {"harness", "work"},
		{"collectivesx", ""},
		{"channels/cudaipc", "transport"}, {"channels/ethernet", "transport"}, {"channels/ib", "transport"},
		{"channels/transports", "transport"}, {"channels/internal/stubtransport", "transport"},
		{"bootstrap/mpi", "transport"}, {"kernels/params", "ground"}, {"internal/device", "ground"},
		{"resultsx", ""}, {"", ""},
	} {
		got := ""
		if i := Of(c.rel); i >= 0 {
			got = Layers[i].Name
		}
		if got != c.want {
			t.Errorf("Of(%q) = %q, want %q", c.rel, got, c.want)
		}
	}
}
