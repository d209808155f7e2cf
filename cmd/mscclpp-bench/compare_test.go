package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
)

const (
	cmpNCCLAllReduce = "../../results/testdata/h200x2-nccl2.28.3-mpi_all_reduce.json"
	cmpNCCLAllGather = "../../results/testdata/h200x2-nccl2.28.3-mpi_all_gather.json"
	cmpOursAllReduce = "../../compare/testdata/synthetic-ours_all_reduce.json"
)

// runCompareMain runs the command line with only the compare subcommand added and
// returns the exit code, stdout and stderr.
func runCompareMain(args ...string) (int, string, string) {
	return runExtra(newCompareCommand, args...)
}

func TestCompareRegistered(t *testing.T) {
	for _, extra := range extraCommands {
		if extra(&cli.App{}).Name() == "compare" {
			return
		}
	}
	t.Error("compare is not among extraCommands")
}

func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	invalid := filepath.Join(dir, "invalid.json")
	if err := os.WriteFile(invalid, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope.json")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // substring of the one-line error; "" when code is 0
		stdout string // substring of the output
	}{
		{name: "same file", args: []string{cmpNCCLAllReduce, cmpNCCLAllReduce}, code: cli.ExitOK,
			stdout: "compared 58 rows: 0 improved, 58 ok, 0 regressed, 0 missing, 0 new, 0 wrong\n"},
		{name: "nccl baseline, ours regressed", args: []string{cmpNCCLAllReduce, cmpOursAllReduce}, code: cli.ExitFailure,
			stderr: "compare: 2 of 92 rows regressed", stdout: "compared 92 rows: 35 improved, 55 ok, 2 regressed, 0 missing, 0 new, 0 wrong\n"},
		{name: "wider busbw tolerance", args: []string{"--busbw-tolerance", "0.2", cmpNCCLAllReduce, cmpOursAllReduce}, code: cli.ExitOK,
			stdout: "0 regressed"},
		{name: "all judged on time", args: []string{"--latency-bound-below", "4G", cmpNCCLAllReduce, cmpOursAllReduce}, code: cli.ExitOK,
			stdout: "| all_reduce_perf | rsag      | float | sum   | out-of-place | 2147483648 | time (us) "},
		{name: "tight time tolerance", args: []string{cmpNCCLAllReduce, cmpOursAllReduce, "--time-tolerance", "0.01", "--busbw-tolerance", "0.5"}, code: cli.ExitFailure,
			stderr: "compare: 34 of 92 rows regressed"},
		{name: "missing rows", args: []string{cmpOursAllReduce, cmpNCCLAllReduce}, code: cli.ExitUsage,
			stderr: "no rows in common"},
		{name: "any algorithm needs one per size", args: []string{"--any-algorithm", cmpOursAllReduce, cmpNCCLAllReduce}, code: cli.ExitUsage,
			stderr: "--any-algorithm needs one algorithm per size"},
		{name: "missing rows forced", args: []string{"--force", cmpOursAllReduce, cmpNCCLAllReduce}, code: cli.ExitFailure,
			stderr: "compare: 92 of 150 rows missing"},
		{name: "different collectives", args: []string{cmpNCCLAllReduce, cmpNCCLAllGather}, code: cli.ExitUsage,
			stderr: "collective: baseline all_reduce_perf, current all_gather_perf (use --force to compare anyway)"},
		{name: "different collectives forced", args: []string{cmpNCCLAllReduce, cmpNCCLAllGather, "--force"}, code: cli.ExitFailure,
			stderr: "compare: 58 of 112 rows missing", stdout: "warning: configurations differ: collective"},
		{name: "missing file", args: []string{missing, cmpNCCLAllReduce}, code: cli.ExitUsage, stderr: "baseline: open " + missing},
		{name: "invalid file", args: []string{cmpNCCLAllReduce, invalid}, code: cli.ExitUsage, stderr: "current " + invalid + ": results: read JSON"},
		{name: "one argument", args: []string{cmpNCCLAllReduce}, code: cli.ExitUsage, stderr: "accepts 2 arg(s), received 1"},
		{name: "three arguments", args: []string{cmpNCCLAllReduce, cmpNCCLAllReduce, cmpNCCLAllReduce}, code: cli.ExitUsage, stderr: "received 3"},
		{name: "negative tolerance", args: []string{"--time-tolerance", "-0.1", cmpNCCLAllReduce, cmpNCCLAllReduce}, code: cli.ExitUsage, stderr: "--time-tolerance -0.1"},
		{name: "NaN tolerance", args: []string{"--busbw-tolerance", "NaN", cmpNCCLAllReduce, cmpNCCLAllReduce}, code: cli.ExitUsage, stderr: "--busbw-tolerance NaN"},
		{name: "bad tolerance", args: []string{"--busbw-tolerance", "5%", cmpNCCLAllReduce, cmpNCCLAllReduce}, code: cli.ExitUsage, stderr: "busbw-tolerance"},
		{name: "bad size", args: []string{"--latency-bound-below", "1X", cmpNCCLAllReduce, cmpNCCLAllReduce}, code: cli.ExitUsage, stderr: "--latency-bound-below"},
		{name: "unknown flag", args: []string{"--tolerance", "1", cmpNCCLAllReduce, cmpNCCLAllReduce}, code: cli.ExitUsage, stderr: "unknown flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCompareMain(append([]string{"compare"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit code %d, want %d; stderr %q", code, tt.code, stderr)
			}
			if tt.code == cli.ExitOK {
				if stderr != "" {
					t.Errorf("stderr %q, want none", stderr)
				}
			} else {
				if !strings.HasPrefix(stderr, "mscclpp-bench: ") || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
					t.Errorf("stderr %q is not one 'mscclpp-bench: ...' line", stderr)
				}
				if !strings.Contains(stderr, tt.stderr) {
					t.Errorf("stderr %q does not contain %q", stderr, tt.stderr)
				}
			}
			if !strings.Contains(stdout, tt.stdout) {
				t.Errorf("stdout does not contain %q:\n%s", tt.stdout, stdout)
			}
			if tt.code == cli.ExitUsage && stdout != "" {
				t.Errorf("usage error printed a table:\n%s", stdout)
			}
		})
	}
}

// compareJUnitSuite holds what the tests check in a JUnit file.
type compareJUnitSuite struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Cases    []struct {
		Name string `xml:"name,attr"`
	} `xml:"testcase"`
}

func TestCompareCommandJUnit(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		tests    int
		failures int
	}{
		{"passing", []string{cmpNCCLAllReduce, cmpNCCLAllReduce}, cli.ExitOK, 58, 0},
		{"failing", []string{cmpNCCLAllReduce, cmpOursAllReduce}, cli.ExitFailure, 92, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "report.xml")
			code, _, stderr := runCompareMain(append([]string{"compare", "--junit", path}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit code %d, want %d; stderr %q", code, tt.code, stderr)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("JUnit file not written: %v", err)
			}
			var suite compareJUnitSuite
			if err := xml.Unmarshal(data, &suite); err != nil {
				t.Fatalf("invalid JUnit XML: %v", err)
			}
			if suite.Tests != tt.tests || suite.Failures != tt.failures || len(suite.Cases) != tt.tests {
				t.Errorf("tests %d, failures %d, cases %d; want %d, %d, %d",
					suite.Tests, suite.Failures, len(suite.Cases), tt.tests, tt.failures, tt.tests)
			}
		})
	}
}

func TestCompareCommandJUnitUnwritable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-dir", "report.xml")
	code, _, stderr := runCompareMain("compare", "--junit", path, cmpNCCLAllReduce, cmpNCCLAllReduce)
	if code != cli.ExitUsage || !strings.Contains(stderr, "--junit") {
		t.Errorf("exit code %d, stderr %q; want %d and a --junit error", code, stderr, cli.ExitUsage)
	}
}
