package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildFront builds the front binary as make does (no cgo) into a temporary folder and
// returns its path; it skips the test in -short mode.
func buildFront(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "mscclpp-bench")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestFrontBinaryNeedsNoGPU builds the front binary as `make` does (no cgo) and checks the
// design promise: it links no shared library at all (so neither libcuda nor libmpi), and
// help, version, compare and plot work with an empty environment, where a GPU subcommand
// fails with a clear line, not a crash.
func TestFrontBinaryNeedsNoGPU(t *testing.T) {
	bin := buildFront(t)
	dir := filepath.Dir(bin)
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

// TestWorkerSaysNoGPU: on a machine without a GPU, a GPU subcommand ends in the worker with
// one line of ours that says so (exit 1), not with the line gorgonia.org/cu's package init
// prints. It builds the worker as make does (cgo, libcuda), so it needs scripts/setup.sh's
// CUDA toolkit, and skips where the NVIDIA driver lists a GPU.
func TestWorkerSaysNoGPU(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the worker binary")
	}
	if gpus, _ := os.ReadDir("/proc/driver/nvidia/gpus"); len(gpus) > 0 {
		t.Skipf("the NVIDIA driver lists %d GPUs here", len(gpus))
	}
	front := buildFront(t)
	worker := filepath.Join(filepath.Dir(front), "mscclpp-bench-gpu")
	build := exec.Command("go", "build", "-o", worker, "../mscclpp-bench-gpu")
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build the worker: %v\n%s", err, out)
	}
	cmd := exec.Command(front, "allreduce", "-b", "8", "-e", "8")
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "mscclpp-bench: no usable GPU on this machine (cuInit: ") {
		t.Fatalf("allreduce without a GPU: exit %d, output %q; want exit 1 and one line saying there is no usable GPU", code, out)
	}
}
