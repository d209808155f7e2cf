package cproto

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	src := `
namespace { __device__ int helper(int a) { return a; } }
extern "C" __global__ void __launch_bounds__(1024, 1) one(MemoryChannelHandle* chans, const char *in,
    uint64_t bytes, uint32_t rank, int iters, unsigned long long* wrong) { helper(1); }
extern "C" __global__ void none() {}
extern "C" __global__ void alsoNone(void) {}
__global__ void notExported(int x) {}
extern "C" __global__ void __launch_bounds__(512) two( const T* __restrict__ buf , uint64_t count) { }`
	got, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []Kernel{
		{Name: "one", Params: []Param{
			{"chans", "MemoryChannelHandle", true}, {"in", "char", true}, {"bytes", "uint64_t", false},
			{"rank", "uint32_t", false}, {"iters", "int", false}, {"wrong", "unsigned long long", true},
		}},
		{Name: "none"},
		{Name: "alsoNone"},
		{Name: "two", Params: []Param{{"buf", "T", true}, {"count", "uint64_t", false}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse:\n got %+v\nwant %+v", got, want)
	}
	if s := got[0].String(); s != "one(MemoryChannelHandle* chans, char* in, uint64_t bytes, uint32_t rank, int iters, unsigned long long* wrong)" {
		t.Errorf("String() = %q", s)
	}
}

func TestParseRejects(t *testing.T) {
	for _, src := range []string{
		`extern "C" __global__ void k(uint64_t) {}`,       // no name
		`extern "C" __global__ void k(char** argv) {}`,    // pointer to pointer
		`extern "C" __global__ void k(int a, , int b) {}`, // empty parameter
	} {
		if ks, err := Parse(src); err == nil || !strings.Contains(err.Error(), "kernel k") {
			t.Errorf("Parse(%q) = %+v, %v; want an error naming kernel k", src, ks, err)
		}
	}
}

// TestReadKernels preprocesses the real sources, in kernels/ and in the collectives'
// folders: every file yields kernels, and a kernel that only a macro instantiates is
// there with its parameters.
func TestReadKernels(t *testing.T) {
	ks, err := ReadTree("../..")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]int{}
	var found *Kernel
	for i, k := range ks {
		files[k.File]++
		if k.Name == "allreduce_rsag_float_sum" {
			found = &ks[i]
		}
	}
	for _, f := range []string{"allgather.cu", "allreduce.cu", "chantest.cu", "pingpong.cu", "verify.cu"} {
		if files[f] == 0 {
			t.Errorf("no kernels read from %s (have %v)", f, files)
		}
	}
	if found == nil {
		t.Fatal("allreduce_rsag_float_sum (instantiated by a macro) not found")
	}
	if len(found.Params) < 3 || found.Params[0].Type != "MemoryChannelHandle" || !found.Params[0].Pointer {
		t.Errorf("allreduce_rsag_float_sum read as %v", found)
	}
}

// TestSources: the .cu files are found at any depth, in name order, and a folder Sources
// skips (bin, third_party, hidden ones) hides the files in it.
func TestSources(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a.cu", "x/b.cu", "x/y/c.cu", "x/y/c.cuh", "bin/d.cu", "third_party/e.cu", ".git/f.cu", "g.go"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Sources(root)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i], _ = filepath.Rel(root, got[i])
	}
	want := []string{"a.cu", "x/b.cu", "x/y/c.cu"}
	if !slices.Equal(got, want) {
		t.Errorf("Sources = %v, want %v", got, want)
	}
	if got, err := Sources(t.TempDir()); err != nil || len(got) != 0 {
		t.Errorf("Sources of a folder with no .cu file = %v, %v; want none and no error", got, err)
	}
	if _, err := ReadTree(t.TempDir()); err == nil {
		t.Error("ReadTree of a module with no .cu file: want an error")
	}
}
