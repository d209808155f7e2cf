package all

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
)

const module = "github.com/mscclpp-bench/mscclpp-bench"

// support are the folders of collectives/ that hold no collective: the toolkit, the
// families, this list and the test helpers.
var support = []string{"algo", "all", "collectivestest", "family"}

// collectiveFolders lists the folders of collectives/ that hold a collective.
func collectiveFolders(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !slices.Contains(support, e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// blankImports returns the packages file imports for their side effects only.
func blankImports(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, imp := range f.Imports {
		if imp.Name != nil && imp.Name.Name == "_" {
			p, _ := strconv.Unquote(imp.Path.Value)
			out = append(out, p)
		}
	}
	return out
}

// TestEveryCollectiveFolderRegistered: all.go imports exactly the collective folders, and
// each registers the collective its folder is named after.
func TestEveryCollectiveFolderRegistered(t *testing.T) {
	folders := collectiveFolders(t)
	var want []string
	for _, f := range folders {
		want = append(want, module+"/collectives/"+f)
	}
	got := blankImports(t, "all.go")
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("all.go imports %v; the collective folders are %v", got, want)
	}
	var names []string
	for _, c := range collectives.Collectives() {
		names = append(names, c.Name())
	}
	if !slices.Equal(names, folders) {
		t.Errorf("registered collectives %v; want one per folder, named after it: %v", names, folders)
	}
}

// TestOnlyAllImportsCollectives: outside the collective folders themselves and this
// package's tests (which run several collectives together), all.go is the only file of the
// module that imports a collective's package: the rest reaches collectives through the
// registry, so a new collective needs no edit elsewhere.
func TestOnlyAllImportsCollectives(t *testing.T) {
	folders := collectiveFolders(t)
	out, err := exec.Command("go", "list", "-tags", "gpu", "-f",
		`{{.Dir}}|{{join .GoFiles " "}} {{join .CgoFiles " "}} {{join .TestGoFiles " "}} {{join .XTestGoFiles " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, names, _ := strings.Cut(line, "|")
		for _, name := range strings.Fields(names) {
			file := filepath.Join(dir, name)
			if dir == self && (name == "all.go" || strings.HasSuffix(name, "_test.go")) {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				rest, ok := strings.CutPrefix(p, module+"/collectives/")
				if !ok || !slices.Contains(folders, rest) {
					continue
				}
				if !inCollective(dir, self, folders) {
					t.Errorf("%s imports %s: only collectives/all/all.go and the collectives' own folders may", file, p)
				}
			}
		}
	}
	if files < 100 {
		t.Fatalf("go list found %d files; the module has more", files)
	}
}

// inCollective says whether dir is (below) one of the collective folders.
func inCollective(dir, self string, folders []string) bool {
	for _, f := range folders {
		base := filepath.Join(self, "..", f)
		if dir == base || strings.HasPrefix(dir, base+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// fixtureCollective is a collective added as a new folder, for
// TestNewCollectiveIsOneFolderAndOneLine: a record and one algorithm, nothing else.
const fixtureCollective = `package zzfixture

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

type fixture struct{}

func init() {
	collectives.RegisterCollective(fixture{})
	collectives.Register(&collectives.Algorithm{Collective: "zzfixture", Name: "nothing", Number: 1, MinRanks: 2,
		New: func(*collectives.Env) (collectives.Instance, error) { return nothing{}, nil }})
}

func (fixture) Name() string     { return "zzfixture" }
func (fixture) TestName() string { return "zzfixture_perf" }
func (fixture) Doc() string      { return "a test fixture" }
func (fixture) HasOp() bool      { return false }
func (fixture) HasRoot() bool    { return false }
func (fixture) Counts(size int64, dt collectives.Datatype, _ int) collectives.Counts {
	n := size / int64(dt.Size)
	return collectives.Counts{Send: n, Recv: n, Param: n}
}
func (fixture) BusFactor(int) float64 { return 1 }
func (f fixture) Bandwidth(c collectives.Counts, elt int, sec float64, n int) (float64, float64) {
	return collectives.ScaledBw(c, elt, sec, 1, f.BusFactor(n))
}
func (fixture) InitData(*collectives.Verifier, *collectives.LaunchArgs, uint32) error { return nil }
func (fixture) Check(*collectives.Verifier, *collectives.LaunchArgs, uint32) error    { return nil }

type nothing struct{}

func (nothing) Launch(*collectives.LaunchArgs, device.Stream) error { return nil }
func (nothing) Close() error                                        { return nil }
`

// fixtureProbe prints what the registry holds once collectives/all is linked.
const fixtureProbe = `package main

import (
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	_ "github.com/mscclpp-bench/mscclpp-bench/collectives/all"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

func main() {
	for _, c := range collectives.Collectives() {
		fmt.Print(c.Name(), ":")
		for _, a := range collectives.Algorithms(c.Name()) {
			fmt.Print(" ", a.Name)
		}
		fmt.Println()
	}
	fmt.Println("known:", results.KnownCollective("zzfixture_perf"))
}
`

// TestNewCollectiveIsOneFolderAndOneLine adds a collective the way a contributor would,
// through the go command's overlay (nothing is written into the tree): one new folder
// (collectives/zzfixture) and one more line in all.go. A program that links
// collectives/all then finds it registered, with its algorithm and the one-rank
// fallback, and results knows its bus factor.
func TestNewCollectiveIsOneFolderAndOneLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	tmp := t.TempDir()
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	all, err := os.ReadFile("all.go")
	if err != nil {
		t.Fatal(err)
	}
	line := "\t_ \"" + module + "/collectives/sendrecv\"\n"
	if !strings.Contains(string(all), line) {
		t.Fatalf("all.go has no line %q to add the fixture after", line)
	}
	withFixture := strings.Replace(string(all), line, line+"\t_ \""+module+"/collectives/zzfixture\"\n", 1)
	replace := map[string]string{
		filepath.Join(self, "all.go"):                                          withFixture,
		filepath.Join(self, "..", "zzfixture", "zzfixture.go"):                 fixtureCollective,
		filepath.Join(self, "..", "zzfixture", "internal", "probe", "main.go"): fixtureProbe,
	}
	overlay := struct{ Replace map[string]string }{map[string]string{}}
	for path, src := range replace {
		tmpFile := filepath.Join(tmp, strconv.Itoa(len(overlay.Replace))+".go")
		if err := os.WriteFile(tmpFile, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		overlay.Replace[filepath.Clean(path)] = tmpFile
	}
	js, err := json.Marshal(overlay)
	if err != nil {
		t.Fatal(err)
	}
	ovFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ovFile, js, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "-overlay", ovFile, "./../zzfixture/internal/probe")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run with the fixture: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "\nzzfixture: nothing local\n") {
		t.Errorf("the fixture collective is not registered with its algorithm and the one-rank fallback:\n%s", out)
	}
	if !strings.Contains(string(out), "known: true") {
		t.Errorf("results does not know the fixture's bus factor:\n%s", out)
	}
}
