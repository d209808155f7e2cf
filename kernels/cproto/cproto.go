// Package cproto reads the extern "C" kernel prototypes of the .cu files (kernels/ and the
// collectives' folders) after the C preprocessor has expanded the macros that instantiate
// them, so that tests can compare them with the Go declarations (kernels/params and the
// collectives' *_params.go). It runs the host C compiler's
// preprocessor (cgo needs that compiler anyway) with empty stand-ins for the CUDA headers:
// no CUDA toolkit or GPU is needed.
package cproto

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Param is one kernel parameter.
type Param struct {
	Name    string
	Type    string // the type without qualifiers or '*', e.g. "uint64_t", "unsigned long long"
	Pointer bool
}

// Kernel is one extern "C" __global__ function.
type Kernel struct {
	Name   string
	File   string // the .cu file's base name
	Params []Param
}

// String prints the kernel as a C prototype, for error messages.
func (k Kernel) String() string {
	ps := make([]string, len(k.Params))
	for i, p := range k.Params {
		star := ""
		if p.Pointer {
			star = "*"
		}
		ps[i] = p.Type + star + " " + p.Name
	}
	return fmt.Sprintf("%s(%s)", k.Name, strings.Join(ps, ", "))
}

// stubHeaders are the system headers the kernels include that a host compiler lacks; no
// prototype depends on what they declare.
var stubHeaders = []string{"cuda_fp16.h", "cuda_bf16.h"}

// Read preprocesses every .cu file in dir (whose include/ folder holds the device headers)
// and returns their kernels, file by file in name order, each file's in source order.
func Read(dir string) ([]Kernel, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.cu"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("cproto: no .cu files in %s", dir)
	}
	return ReadFiles(files, filepath.Join(dir, "include"))
}

// Sources lists every .cu file under root, wherever it lives (a collective's folder, a
// family's, kernels/), in name order; hidden folders, bin and third_party are skipped.
// A folder without any gives an empty list.
func Sources(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "bin" || d.Name() == "third_party") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".cu") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cproto: %w", err)
	}
	sort.Strings(files)
	return files, nil
}

// KernelDirs are the module's folders that hold the benchmark's kernels (tools/ holds
// standalone CUDA programs, which are not embedded).
var KernelDirs = []string{"kernels", "collectives"}

// ReadTree reads every .cu file of the module at root (Sources of each of KernelDirs),
// with the device headers of root/kernels/include.
func ReadTree(root string) ([]Kernel, error) {
	var files []string
	for _, d := range KernelDirs {
		fs, err := Sources(filepath.Join(root, d))
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("cproto: no .cu files under %s in %v", root, KernelDirs)
	}
	return ReadFiles(files, filepath.Join(root, "kernels", "include"))
}

// ReadFiles preprocesses the .cu files (with the device headers of include) and returns
// their kernels, file by file in the order given, each file's in source order.
func ReadFiles(files []string, include string) ([]Kernel, error) {
	stubs, err := os.MkdirTemp("", "cproto-")
	if err != nil {
		return nil, fmt.Errorf("cproto: %w", err)
	}
	defer os.RemoveAll(stubs)
	for _, h := range stubHeaders {
		if err := os.WriteFile(filepath.Join(stubs, h), nil, 0o644); err != nil {
			return nil, fmt.Errorf("cproto: %w", err)
		}
	}
	var out []Kernel
	for _, f := range files {
		src, err := preprocess(f, stubs, include)
		if err != nil {
			return nil, err
		}
		ks, err := Parse(src)
		if err != nil {
			return nil, fmt.Errorf("cproto: %s: %w", filepath.Base(f), err)
		}
		for i := range ks {
			ks[i].File = filepath.Base(f)
		}
		out = append(out, ks...)
	}
	return out, nil
}

// preprocess runs `$CC -E` (gcc by default) on one file.
func preprocess(file string, includes ...string) (string, error) {
	cc := strings.Fields(os.Getenv("CC"))
	if len(cc) == 0 {
		cc = []string{"gcc"}
	}
	args := append(cc[1:], "-E", "-P", "-x", "c")
	for _, inc := range includes {
		args = append(args, "-I", inc)
	}
	args = append(args, file)
	cmd := exec.Command(cc[0], args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("cproto: %s -E %s: %v: %s", cc[0], filepath.Base(file), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

var protoRE = regexp.MustCompile(`extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\(([^)]*)\)`)

// Parse finds the extern "C" __global__ prototypes in preprocessed source.
func Parse(src string) ([]Kernel, error) {
	var out []Kernel
	for _, m := range protoRE.FindAllStringSubmatch(src, -1) {
		k := Kernel{Name: m[1]}
		list := strings.TrimSpace(m[2])
		if list != "" && list != "void" {
			for _, p := range strings.Split(list, ",") {
				param, err := parseParam(p)
				if err != nil {
					return nil, fmt.Errorf("kernel %s: %w", k.Name, err)
				}
				k.Params = append(k.Params, param)
			}
		}
		out = append(out, k)
	}
	return out, nil
}

var qualifiers = map[string]bool{"const": true, "volatile": true, "__restrict__": true}

// parseParam splits "const char* in" into its type, pointer-ness and name.
func parseParam(s string) (Param, error) {
	words := strings.Fields(strings.ReplaceAll(s, "*", " * "))
	var p Param
	var typ []string
	for i, w := range words {
		switch {
		case w == "*":
			if p.Pointer {
				return Param{}, fmt.Errorf("parameter %q: pointers to pointers are not kernel arguments here", strings.TrimSpace(s))
			}
			p.Pointer = true
		case qualifiers[w]:
		case i == len(words)-1:
			p.Name = w
		default:
			typ = append(typ, w)
		}
	}
	p.Type = strings.Join(typ, " ")
	if p.Name == "" || p.Type == "" {
		return Param{}, fmt.Errorf("parameter %q: want a type and a name", strings.TrimSpace(s))
	}
	return p, nil
}
