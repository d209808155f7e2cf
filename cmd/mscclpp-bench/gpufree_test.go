package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFrontBinaryNeedsNoGPU builds the front binary as `make` does (no cgo) and checks the
// design promise: it links no shared library at all (so neither libcuda nor libmpi), and
// help, version, compare and plot work with an empty environment, where a GPU subcommand
// fails with a clear line, not a crash.
func TestFrontBinaryNeedsNoGPU(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "mscclpp-bench")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	libs, err := f.ImportedLibraries()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(libs) != 0 {
		t.Fatalf("the front binary links %v; it must run without CUDA or MPI libraries", libs)
	}
	reduce, err := filepath.Abs(cmpNCCLAllReduce)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		want string // in stdout or stderr
	}{
		{[]string{"version"}, 0, "mscclpp-bench"},
		{[]string{"--version"}, 0, "mscclpp-bench"},
		{[]string{"completion", "tcsh"}, 2, `completion "tcsh"`},
		{[]string{"allreduce", "--bootstrap-addr", "garbage"}, 2, "--bootstrap-addr"},
		{[]string{"--help"}, 0, "compare"},
		{[]string{"compare", reduce, reduce}, 0, "compared 58 rows"},
		{[]string{"plot", reduce, "-o", filepath.Join(dir, "p.svg")}, 0, "wrote"},
		{[]string{"allreduce", "-b", "8", "-e", "8"}, 1, "worker binary"},
		{[]string{"allreduce", "-b", "1T"}, 2, "--minbytes"},
	}
	for _, tt := range tests {
		cmd := exec.Command(bin, tt.args...)
		cmd.Env = []string{} // no PATH, no LD_LIBRARY_PATH, no MPI or CUDA variables
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if code != tt.code || !strings.Contains(string(out), tt.want) {
			t.Errorf("%v: exit %d, output %q; want exit %d mentioning %q", tt.args, code, out, tt.code, tt.want)
		}
	}
}
