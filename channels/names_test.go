package channels

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// transportNames finds every transport registered from a folder below this one (the
// composite literal a RegisterTransport call passes) and returns the words that name
// them: the folder's name, and the record's Name, Title, Flag and Aliases, lower case
// and without spaces ("CUDA IPC" is "cudaipc").
func transportNames(t *testing.T) map[string]string {
	t.Helper()
	names := map[string]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Dir(path) == "." || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "RegisterTransport" {
				return true
			}
			lit, ok := call.Args[0].(*ast.CompositeLit)
			if !ok {
				t.Errorf("%s: RegisterTransport takes a record this test cannot read", path)
				return true
			}
			dir := filepath.Base(filepath.Dir(path))
			names[dir] = dir
			ast.Inspect(lit, func(n ast.Node) bool {
				if s, ok := n.(*ast.BasicLit); ok && s.Kind == token.STRING {
					if v, err := strconv.Unquote(s.Value); err == nil && v != "" && len(v) < 20 {
						names[squash(v)] = dir
					}
				}
				return true
			})
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// squash lowers s and drops what is not a letter or a digit.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// words splits an identifier into its words (TransportCUDAIPC: transport, cudaipc;
// ethAddr: eth, addr) and a string into its words, lower case; it adds each pair of
// neighbours joined ("cuda ipc" gives cudaipc).
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = nil
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	n := len(out)
	for i := 0; i+1 < n; i++ {
		out = append(out, out[i]+out[i+1])
	}
	return out
}

// TestCoreNamesNoTransport: no identifier, string or import of the core's own files names
// a transport (its folder, the names its record gives it, or the usual short forms of the
// three network words), so that adding a transport touches no file of the core. Comments
// may give examples.
func TestCoreNamesNoTransport(t *testing.T) {
	names := transportNames(t)
	if len(names) < 6 {
		t.Fatalf("found the names %v of the registered transports; expected those of cudaipc, ethernet and ib at least", names)
	}
	for _, short := range []string{"eth", "hca", "verbs", "rdma", "ibverbs", "tcp", "socket", "sockets", "nvlink"} {
		names[short] = "(short form)"
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		check := func(what, text string) {
			for _, w := range words(text) {
				if dir, ok := names[w]; ok {
					t.Errorf("%s: %s %q names the transport %s", path, what, text, dir)
					return
				}
			}
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.Contains(p, "/channels/") || strings.HasSuffix(p, "/rdma") || strings.HasSuffix(p, "/ibverbs") {
				t.Errorf("%s imports %s", path, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.Ident:
				check("identifier", x.Name)
			case *ast.BasicLit:
				if x.Kind == token.STRING {
					check("string", x.Value)
				}
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked %d files of the core", checked)
	}
}

func TestWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"TransportCUDAIPC", "transport cudaipc transportcudaipc"},
		{"ethAddr", "eth addr ethaddr"},
		{"IPCMemory", "ipc memory ipcmemory"},
		{`"no CUDA IPC handle"`, "no cuda ipc handle nocuda cudaipc ipchandle"},
	} {
		if got := strings.Join(words(c.in), " "); got != c.want {
			t.Errorf("words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
