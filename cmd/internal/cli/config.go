// Package cli is the command-line front of mscclpp-bench: cobra commands, nccl-tests'
// flag names and defaults, validation and help. It imports neither gorgonia.org/cu nor
// gompi, so it runs and is tested on machines with no GPU and no MPI. A GPU subcommand's
// command line is parsed and checked once into a Plan (plan.go) that holds that
// subcommand's options; the front binary's Runner hands the Plan to the GPU worker, which
// decodes it (WorkerMain) and runs it without parsing the command line again.
package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
)

// Common are the options every GPU subcommand takes, validated: the sweep's sizes and
// iterations, the limits, the bootstrap, the transport, the output and what the
// environment sets for the libraries. Each subcommand's options embed it
// (CollectiveOptions, PingPongOptions, AcceptanceOptions).
type Common struct {
	MinBytes, MaxBytes int64
	StepBytes          int64
	StepFactor         int64
	Iters              int
	Warmup             int
	Check              int
	Timeout            time.Duration
	JSONPath           string
	// Transport is --transport as the mesh takes it, from parse to the connection set-up.
	Transport        channels.Mode
	BootstrapTimeout time.Duration
	BootstrapAddr    string // "[interface:]ip:port" for the root; "" = automatic
	Progress         string // "auto", "on" or "off"

	Env Env // what the environment sets for the libraries (env.go)
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
func (c *Common) Sizes() []int64 {
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
