//go:build cgo

package all

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/kernels"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/cproto"
)

// moduleRoot is the module's folder, two up from this package's.
const moduleRoot = "../.."

// cuSources lists the module's .cu files (cproto.KernelDirs), module-relative.
func cuSources(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, d := range cproto.KernelDirs {
		files, err := cproto.Sources(filepath.Join(moduleRoot, d))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			rel, err := filepath.Rel(moduleRoot, f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, filepath.ToSlash(rel))
		}
	}
	if len(out) == 0 {
		t.Fatal("no .cu files found")
	}
	return out
}

// TestEveryKernelEmbedded: every folder that holds a .cu file embeds its fatbins and
// registers them with the kernel loader (what this package links, the worker links), no
// two .cu files share a base name (the loader's key), and, once `make` has built the
// fatbins, the loader has exactly one image per .cu file: the worker embeds them all.
func TestEveryKernelEmbedded(t *testing.T) {
	srcs := cuSources(t)
	registered := kernels.Registered()
	seen := map[string]string{}
	built := 0
	for _, src := range srcs {
		dir, name := filepath.Dir(src), strings.TrimSuffix(filepath.Base(src), ".cu")
		if !slices.Contains(registered, dir) {
			t.Errorf("%s: its folder %s registers no fatbins with kernels (have %v): add an embed.go", src, dir, registered)
		}
		if other, dup := seen[name]; dup {
			t.Errorf("%s and %s share the base name %s: the loader keys images by it", other, src, name)
		}
		seen[name] = src
		if _, err := os.Stat(filepath.Join(moduleRoot, dir, "fatbin", name+".fatbin")); err == nil {
			built++
		}
	}
	for _, dir := range registered {
		if !slices.ContainsFunc(srcs, func(s string) bool { return filepath.Dir(s) == dir }) {
			t.Errorf("%s registers fatbins but holds no .cu file", dir)
		}
	}
	if built == 0 {
		t.Skip("no fatbin is built (run `make kernels`): the images' count is not checked")
	}
	if built != len(srcs) {
		t.Fatalf("%d of %d .cu files have a built fatbin: run `make kernels`", built, len(srcs))
	}
	images, err := kernels.Images()
	if err != nil {
		t.Fatal(err)
	}
	if len(images) != len(srcs) {
		t.Errorf("%d embedded images for %d .cu files", len(images), len(srcs))
	}
	for name, src := range seen {
		if len(images[name]) == 0 {
			t.Errorf("%s: no embedded image %s", src, name)
		}
	}
}
