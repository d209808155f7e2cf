// Package kernels holds the CUDA sources of mscclpp-bench and embeds their compiled
// fatbins (built by `make` into kernels/fatbin/). Device headers live in include/mscclpp:
// handles.h defines the structs shared with Go (kernels/layout checks them); the
// *_device.cuh headers hold the device halves of the channels and what the collective
// kernels share. Every kernel's name and parameters are declared in Go in kernels/params
// (checked against these sources by a CPU test through kernels/cproto). This package is
// plain Go: it needs neither a GPU nor the CUDA toolkit.
package kernels

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

//go:embed fatbin
var fatbins embed.FS

// Images returns every embedded fatbin by name (the .cu file's base name).
func Images() (map[string][]byte, error) {
	entries, err := fs.ReadDir(fatbins, "fatbin")
	if err != nil {
		return nil, fmt.Errorf("read embedded kernels: %w", err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".fatbin") {
			continue
		}
		b, err := fatbins.ReadFile(path.Join("fatbin", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read embedded kernel %s: %w", e.Name(), err)
		}
		out[strings.TrimSuffix(e.Name(), ".fatbin")] = b
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no compiled kernels are embedded in this binary: build it with `make`, which runs nvcc first")
	}
	return out, nil
}
