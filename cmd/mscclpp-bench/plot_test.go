package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
)

const plotTestInput = "../../results/testdata/h200x2-nccl2.28.3-mpi_all_reduce.json"

func TestPlotCommand(t *testing.T) {
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(notJSON, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	pingpong := filepath.Join(dir, "pp.json")
	if err := os.WriteFile(pingpong, []byte(`{"version":3,"results":[],"pingpong":[{"pair":"0-1","channel":"memory","mode":"put","size":8,"time":1,"latency_us":1,"alg_bw":0.008,"nwrong":0}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	gather := "../../results/testdata/h200x2-nccl2.28.3-mpi_all_gather.json"

	tests := []struct {
		name   string
		args   []string
		out    string // file the command should write, relative to dir
		code   int
		stderr string // substring of the error line
	}{
		{name: "svg", args: []string{plotTestInput, "-o", "out.svg"}, out: "out.svg"},
		{name: "png with options", args: []string{plotTestInput, gather, "-o", "out.png", "--label", "reduce,gather", "--placement", "in", "--datatype", "float", "--title", "T", "--width", "5in", "--height", "3in", "--dpi", "40"}, out: "out.png"},
		{name: "by algorithm", args: []string{"--by-algorithm", plotTestInput, "-o", "alg.svg"}, out: "alg.svg"},
		{name: "no input", args: []string{"-o", "x.svg"}, code: cli.ExitUsage, stderr: "at least one"},
		{name: "no output", args: []string{plotTestInput}, code: cli.ExitUsage, stderr: "-o"},
		{name: "bad extension", args: []string{plotTestInput, "-o", "x.pdf"}, code: cli.ExitUsage, stderr: ".svg or .png"},
		{name: "missing input", args: []string{"nope.json", "-o", "x.svg"}, code: cli.ExitUsage, stderr: "nope.json"},
		{name: "invalid input", args: []string{notJSON, "-o", "x.svg"}, code: cli.ExitUsage, stderr: "bad.json"},
		{name: "ping-pong input", args: []string{pingpong, "-o", "x.svg"}, code: cli.ExitUsage, stderr: "pp.json"},
		{name: "absent datatype", args: []string{plotTestInput, "-o", "x.svg", "--datatype", "half"}, code: cli.ExitUsage, stderr: "mpi_all_reduce.json"},
		{name: "label count", args: []string{plotTestInput, "-o", "x.svg", "--label", "a,b"}, code: cli.ExitUsage, stderr: "--label"},
		{name: "bad placement", args: []string{plotTestInput, "-o", "x.svg", "--placement", "both"}, code: cli.ExitUsage, stderr: "placement"},
		{name: "bad width", args: []string{plotTestInput, "-o", "x.svg", "--width", "wide"}, code: cli.ExitUsage, stderr: "--width"},
		{name: "tiny height", args: []string{plotTestInput, "-o", "x.svg", "--height", "1cm"}, code: cli.ExitUsage, stderr: "height"},
		{name: "unwritable output", args: []string{plotTestInput, "-o", filepath.Join("missing-dir", "x.svg")}, code: cli.ExitUsage, stderr: "missing-dir"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"plot"}, tc.args...)
			for i, a := range args {
				if i > 0 && args[i-1] == "-o" {
					args[i] = filepath.Join(dir, a)
				}
			}
			code, stdout, stderr := runExtra(newPlotCommand, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			if tc.stderr != "" && !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.stderr)
			}
			if tc.out == "" {
				return
			}
			data, err := os.ReadFile(filepath.Join(dir, tc.out))
			if err != nil {
				t.Fatalf("output not written: %v", err)
			}
			if !strings.Contains(stdout, tc.out) {
				t.Errorf("stdout %q does not name %s", stdout, tc.out)
			}
			switch filepath.Ext(tc.out) {
			case ".svg":
				if !bytes.Contains(data, []byte("<svg")) || !bytes.Contains(data, []byte("h200x2-nccl2.28.3-mpi_all_reduce")) {
					t.Errorf("SVG lacks <svg> or the legend label")
				}
			case ".png":
				img, err := png.Decode(bytes.NewReader(data))
				if err != nil {
					t.Fatalf("PNG does not decode: %v", err)
				}
				if b := img.Bounds(); b.Dx() != 200 || b.Dy() != 120 {
					t.Errorf("PNG is %dx%d, want 200x120", b.Dx(), b.Dy())
				}
			}
		})
	}
}
