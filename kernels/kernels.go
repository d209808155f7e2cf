// Package kernels is the kernel loader's catalogue: it embeds the compiled fatbins of its
// own CUDA sources (verify.cu's test data and checks, which the collectives' Verifier,
// ping-pong and the GPU suite share, and the ping-pong and channel-test kernels, built by
// `make` into kernels/fatbin/) and collects those of every package that registers its own
// (each collective's folder embeds the fatbins of the .cu files beside it and calls
// Register from its init). Device headers live in include/mscclpp: handles.h defines the
// structs shared with Go (kernels/layout checks them); the *_device.cuh headers hold the
// device halves of the channels and what the collective kernels share. Every kernel's name
// and parameters are declared in Go (kernels/params and the collectives' *_params.go
// files, checked against the sources by a CPU test through kernels/cproto). This package
// is plain Go: it needs neither a GPU nor the CUDA toolkit.
package kernels

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed fatbin
var fatbins embed.FS

// registered are the fatbin folders of the packages that called Register, by package.
var registered = map[string]fs.FS{"kernels": fatbins}

// Register adds the fatbins that package pkg embeds: every *.fatbin file in the folder
// "fatbin" of fsys. Each package whose folder holds .cu files calls it from its init. It
// panics on a package registered twice: a programming error found by the first test run.
func Register(pkg string, fsys fs.FS) {
	if _, dup := registered[pkg]; dup {
		panic(fmt.Sprintf("kernels: %s registered its fatbins twice", pkg))
	}
	registered[pkg] = fsys
}

// Registered lists the module-relative folders whose fatbins are registered (kernels
// itself included), in name order.
func Registered() []string {
	out := make([]string, 0, len(registered))
	for p := range registered {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Images returns every embedded fatbin of every registered package by name (the .cu
// file's base name, unique across the module).
func Images() (map[string][]byte, error) {
	pkgs := Registered()
	out := map[string][]byte{}
	from := map[string]string{}
	for _, p := range pkgs {
		fsys := registered[p]
		entries, err := fs.ReadDir(fsys, "fatbin")
		if err != nil {
			return nil, fmt.Errorf("read embedded kernels of %s: %w", p, err)
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".fatbin") {
				continue
			}
			b, err := fs.ReadFile(fsys, path.Join("fatbin", e.Name()))
			if err != nil {
				return nil, fmt.Errorf("read embedded kernel %s of %s: %w", e.Name(), p, err)
			}
			name := strings.TrimSuffix(e.Name(), ".fatbin")
			if q, dup := from[name]; dup {
				return nil, fmt.Errorf("kernel image %s is embedded by both %s and %s: rename one .cu file", name, q, p)
			}
			from[name] = p
			out[name] = b
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no compiled kernels are embedded in this binary: build it with `make`, which runs nvcc first")
	}
	return out, nil
}
