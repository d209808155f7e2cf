// Package cli is the command-line front of mscclpp-bench: cobra commands, nccl-tests'
// flag names and defaults, validation and help. It imports neither gorgonia.org/cu nor
// gompi, so it runs and is tested on machines with no GPU and no MPI. GPU subcommands hand
// their validated Config to a Runner: the front binary's runner execs the GPU worker, the
// worker's runner runs the benchmark.
package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
)

// Config is everything a benchmark subcommand was asked to do.
type Config struct {
	Command string // "allgather", "allreduce", "pingpong", "acceptance"

	MinBytes, MaxBytes int64
	StepBytes          int64
	StepFactor         int64
	Iters              int
	Warmup             int
	AggIters           int
	Check              int
	Datatypes          []string
	Ops                []string
	Blocking           int
	Timeout            time.Duration
	Graph              int
	Average            int
	Cycles             int // nccl-tests' -N: sweeps to run, 0 until stopped
	JSONPath           string
	Kernel             string // "auto", a name, a number, or "all"
	Transport          string // "auto", "nvlink", "ethernet" or "ib"
	Summary            bool
	RepeatCheck        bool // --repeat-check: outputs bitwise identical across runs and ranks
	BootstrapTimeout   time.Duration
	BootstrapAddr      string // "[interface:]ip:port" for the root; "" = automatic

	NCCLTests NCCLTestsOptions // nccl-tests' other options (nccltests_compat.go)

	// pingpong
	Pair     string // "i,j" or "" for every pair
	Channels string // "memory", "port" or "all"

	// acceptance
	SpecPath string

	Progress string // "auto", "on" or "off"

	Env Env // what the environment sets for the libraries (env.go)

	Args []string // the command line, for reports
}

// UsageError is a bad flag or combination: the process exits with code 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error { return &UsageError{Msg: fmt.Sprintf(format, args...)} }

// Usagef returns a UsageError: Main prints it as one line and exits with ExitUsage (2).
func Usagef(format string, args ...any) error { return usagef(format, args...) }

// IsUsage reports whether err is a usage error.
func IsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}

// Sizes returns the sweep nccl-tests would run: from min to max, multiplying by the step
// factor when it is above 1, else adding the step in bytes.
func (c *Config) Sizes() []int64 {
	var out []int64
	for s := c.MinBytes; s <= c.MaxBytes; {
		out = append(out, s)
		next := s + c.StepBytes
		if c.StepFactor > 1 {
			next = s * c.StepFactor
		}
		if next <= s { // 0 * factor, or overflow
			if s == 0 && c.StepFactor > 1 {
				next = 1
			} else {
				break
			}
		}
		s = next
	}
	return out
}

// Every element type and reduction operator mscclpp-bench runs, in nccl-tests' order
// (collectives holds the one list of each; it needs no cgo).
var (
	AllDatatypes = collectives.DatatypeNames()
	AllOps       = collectives.OpNames()
)

// datatypeAliases maps nccl-tests' other spellings to ours.
var datatypeAliases = map[string]string{
	"char": "int8", "int": "int32", "uint": "uint32", "float16": "half", "fp16": "half",
	"float32": "float", "fp32": "float", "float64": "double", "fp64": "double", "bf16": "bfloat16",
}

func parseList(flag, value string, all []string, aliases map[string]string) ([]string, error) {
	if value == "all" {
		return append([]string(nil), all...), nil
	}
	var out []string
	for _, v := range strings.Split(value, ",") {
		v = strings.TrimSpace(v)
		if a, ok := aliases[v]; ok {
			v = a
		}
		if !slices.Contains(all, v) {
			return nil, usagef("invalid %s %q: want one of %s or all", flag, v, strings.Join(all, ", "))
		}
		if slices.Contains(out, v) {
			return nil, usagef("--%s lists %s twice", flag, v)
		}
		out = append(out, v)
	}
	return out, nil
}
