package cli

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/internal/safefile"
)

// Limits on what one command line may ask for.
const (
	// MaxMessageBytes is the largest message size: channel offsets address 64 GiB.
	MaxMessageBytes = 64 << 30
	// MaxSizes is the most message sizes one sweep may have (-b 1 -e 64G -f 1 -i 1 would
	// be 68.7 billion).
	MaxSizes = 10000
)

// checkMaxBytes refuses a message size above MaxMessageBytes; what names its source
// ("--maxbytes", "--spec: collectives[2].size").
func checkMaxBytes(what string, n int64) error {
	if n > MaxMessageBytes {
		return usagef("%s %d is above the 64 GiB that channel offsets can address", what, n)
	}
	return nil
}

// sizeCount is len(c.Sizes()) without building the list.
func (c *Common) sizeCount() int64 {
	if c.MinBytes > c.MaxBytes {
		return 0
	}
	if c.StepFactor <= 1 {
		if c.StepBytes <= 0 {
			return 1
		}
		return (c.MaxBytes-c.MinBytes)/c.StepBytes + 1
	}
	n := int64(0)
	for s := c.MinBytes; s <= c.MaxBytes; n++ {
		next := s * c.StepFactor
		if s == 0 {
			next = 1
		}
		if next <= s || next/c.StepFactor < s { // overflow
			return n + 1
		}
		s = next
	}
	return n
}

// checkSweepLength refuses a sweep of more than MaxSizes sizes, with the count.
func (c *Common) checkSweepLength() error {
	if n := c.sizeCount(); n > MaxSizes {
		step := fmt.Sprintf("adding %d (-i)", c.StepBytes)
		if c.StepFactor > 1 {
			step = fmt.Sprintf("multiplying by %d (-f)", c.StepFactor)
		}
		return usagef("the sweep from %d (-b) to %d (-e) bytes %s has %d sizes; at most %d: raise -i or use -f 2",
			c.MinBytes, c.MaxBytes, step, n, MaxSizes)
	}
	return nil
}

// checkOutputPath checks an output file flag's value before any work (see
// safefile.CheckOutput): not one of inputs, not a directory, FIFO or device, and in a
// directory that accepts new files.
func checkOutputPath(flag, path string, inputs ...string) error {
	if err := safefile.CheckOutput(path, inputs...); err != nil {
		return usagef("%s: %v", flag, err)
	}
	return nil
}

// checkBootstrapSettings checks --bootstrap-addr and, when --bootstrap-timeout does not
// override it, $MSCCLPP_BENCH_BOOTSTRAP_TIMEOUT, so that bad values are refused before the
// GPU worker starts rather than when the ranks meet.
func checkBootstrapSettings(addr string, timeout time.Duration) error {
	if err := bootstrap.CheckAddr(addr); err != nil {
		return usagef("--bootstrap-addr: %v", err)
	}
	if timeout == 0 {
		if err := bootstrap.CheckTimeoutEnv(); err != nil {
			return usagef("%v (or give --bootstrap-timeout)", err)
		}
	}
	return nil
}

// checkLaunchEnv checks the variables of the launcher the run will join through
// (bootstrap.DetectLaunch: MSCCLPP_BENCH_RANK/NRANKS/ROOT, torchrun's, Slurm's), so that a
// bad value is refused before the GPU worker starts rather than once it has a GPU. Under
// an MPI launcher, whose rank and size win, they are not read and not checked.
func checkLaunchEnv() error {
	if bootstrap.MPILaunched() {
		return nil
	}
	if _, _, err := bootstrap.DetectLaunch(); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// sweepFlags are the size flags of the collectives and pingpong; acceptance takes
// its sizes from the spec instead.
var sweepFlags = []string{"minbytes", "maxbytes", "stepbytes", "stepfactor"}

// refuseSweepFlags refuses size flags given to acceptance, which would otherwise be
// ignored (they are hidden from its help).
func refuseSweepFlags(fs *pflag.FlagSet) error {
	for _, name := range sweepFlags {
		if f := fs.Lookup(name); f != nil && f.Changed {
			return usagef("acceptance takes its sizes from the spec (collectives: size, and put_bytes; see --spec), not -%s/--%s", f.Shorthand, name)
		}
	}
	return nil
}

// refuseUnknownTopics makes `completion SHELL` with a shell cobra cannot complete for, and
// `help TOPIC` with no such command, usage errors (cobra's defaults print help and exit 0).
func refuseUnknownTopics(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() != "help" || c.Run == nil {
			continue
		}
		help := c.Run
		c.Run = nil
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if target, _, err := root.Find(args); len(args) > 0 && (err != nil || target == root) {
				return usagef("help %q: no such command; see %s --help", args[0], root.Name())
			}
			help(cmd, args)
			return nil
		}
	}
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sh := range c.Commands() {
			shells = append(shells, sh.Name())
		}
		slices.Sort(shells)
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return usagef("completion %q: no completion for that shell; want one of %s", args[0], strings.Join(shells, ", "))
		}
	}
}
