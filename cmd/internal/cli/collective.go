package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	_ "github.com/mscclpp-bench/mscclpp-bench/collectives/all" // every collective registers itself
)

// CollectiveOptions are a collective subcommand's options, validated: what the worker's
// sweep runs.
type CollectiveOptions struct {
	Common
	Collective string // the registered collective's name ("allreduce", ...)
	// Kernel is -k resolved against the collective's algorithms: auto, all or one of them.
	Kernel      Selection
	AggIters    int
	Blocking    int
	Graph       int
	Average     int
	Cycles      int // nccl-tests' -N: sweeps to run, 0 until stopped
	Datatypes   []string
	Ops         []string
	Summary     bool
	RepeatCheck bool             // --repeat-check: outputs bitwise identical across runs and ranks
	NCCLTests   NCCLTestsOptions // nccl-tests' other options (nccltests_compat.go)
}

// SelectionMode says how -k picks algorithms.
type SelectionMode int

// The ways -k picks algorithms.
const (
	SelectAuto SelectionMode = iota // the best algorithm for each size on the job's layout
	SelectAll                       // every algorithm that supports each size
	SelectOne                       // the one algorithm named
)

// Selection is a -k value resolved once against the collective's registered algorithms.
type Selection struct {
	Mode SelectionMode
	// Algorithm is the algorithm's registered name when Mode is SelectOne (-k 3 and
	// -k rsag give the same name), else "".
	Algorithm string
	// Given is -k as typed, for messages.
	Given string
}

// Key is the selection as the collectives registry takes it: "auto", "all" or the
// algorithm's name.
func (s Selection) Key() string {
	switch s.Mode {
	case SelectAuto:
		return "auto"
	case SelectAll:
		return "all"
	}
	return s.Algorithm
}

// ParseSelection resolves -k k for collective: auto, all, or an algorithm's name or number.
func ParseSelection(collective, k string) (Selection, error) {
	if k == "auto" || k == "all" {
		if err := collectives.ValidKernel(collective, k); err != nil { // none registered
			return Selection{}, err
		}
		if k == "auto" {
			return Selection{Mode: SelectAuto, Given: k}, nil
		}
		return Selection{Mode: SelectAll, Given: k}, nil
	}
	a, err := collectives.Find(collective, k)
	if err != nil {
		return Selection{}, err
	}
	return Selection{Mode: SelectOne, Algorithm: a.Name, Given: k}, nil
}

// collectiveFlags are a collective command's flags: the common ones plus nccl-tests'
// collective flags. -o exists on every collective, as in nccl-tests (scripts pass one
// option set to every program); where the collective does not reduce it only labels rows.
type collectiveFlags struct {
	commonFlags
	aggIters, blocking, graph int
	cycles, average           int
	datatype, op, kernel      string
	summary, repeatCheck      bool
	nccl                      ncclTestsFlags // nccl-tests' other options (nccltests_compat.go)
}

// collectiveCommand builds the subcommand of one registered collective: its name, help
// and flags come from the collective and its algorithms (collectives.RegisterCollective),
// so adding a collective adds its command here without a change.
func collectiveCommand(app *App, coll collectives.Collective) *cobra.Command {
	r := &collectiveFlags{}
	name := coll.Name()
	cmd := &cobra.Command{
		Use:   name,
		Short: coll.Doc(),
		Long:  ncclTestsLong(coll),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := r.build(coll, cmd.Flags())
			if err != nil {
				return err
			}
			return run(app, cmd, &Plan{Command: o.Collective, Collective: o})
		},
	}
	fs := cmd.Flags()
	r.add(fs, "32M", "32M", 1)
	fs.IntVarP(&r.aggIters, "agg_iters", "m", 1, "collectives aggregated per timed iteration")
	fs.StringVarP(&r.datatype, "datatype", "d", "float", "element type: "+strings.Join(AllDatatypes, ", ")+" or all")
	opHelp := "reduction: " + strings.Join(AllOps, ", ") + " or all"
	if !coll.HasOp() {
		opHelp += " (accepted as nccl-tests does; " + name + " does not reduce, so it has no effect)"
	}
	fs.StringVarP(&r.op, "op", "o", "sum", opHelp)
	fs.IntVarP(&r.blocking, "blocking", "z", 0, "0: asynchronous; 1: wait and barrier after each inner iteration (-m); 2: wait only; 3: wait after each inner and barrier after each outer iteration (-n), time excludes the barrier")
	fs.IntVarP(&r.graph, "cudagraph", "G", 0, "capture the iterations in a CUDA graph and launch it this many times (0: no graph)")
	fs.IntVarP(&r.average, "average", "a", 1, "report time of 0: rank 0, 1: average, 2: minimum, 3: maximum over ranks")
	fs.StringVarP(&r.kernel, "kernel", "k", "auto", "algorithm: auto, all, or a name or number ("+kernelList(name)+")")
	fs.BoolVar(&r.summary, "summary", false, "after the table, print the best algorithm per size (useful with -k all)")
	fs.BoolVar(&r.repeatCheck, "repeat-check", false, "run each placement -n more times on inputs whose reduction depends on its order: outputs must be bitwise identical across runs (and ranks, for allreduce, allgather, broadcast); a repeat column; exit 1 on a difference")
	fs.IntVarP(&r.cycles, "run_cycles", "N", 1, "run and print the whole sweep this many times, with each rank's memory after each (0: until stopped)")
	addNCCLTestsFlags(fs, &r.nccl)
	return cmd
}

// kernelList is the -k help's list of a collective's algorithms.
func kernelList(collective string) string {
	var out []string
	for _, a := range collectives.Algorithms(collective) {
		out = append(out, fmt.Sprintf("%d=%s", a.Number, a.Name))
	}
	if len(out) == 0 {
		return "none registered"
	}
	return strings.Join(out, ", ")
}

// build validates the flags (defined on fs) into the collective's options.
func (r *collectiveFlags) build(coll collectives.Collective, fs *pflag.FlagSet) (*CollectiveOptions, error) {
	command := coll.Name()
	common, err := r.commonFlags.build()
	if err != nil {
		return nil, err
	}
	c := &CollectiveOptions{Common: common, Collective: command, Summary: r.summary, RepeatCheck: r.repeatCheck}
	if err := checkInts([]intCheck{
		{"--agg_iters", r.aggIters, 1, 1 << 16},
		{"--blocking", r.blocking, 0, 3},
		{"--cudagraph", r.graph, 0, 1 << 20},
		{"--run_cycles", r.cycles, 0, 1 << 24},
		{"--average", r.average, 0, 3},
	}); err != nil {
		return nil, err
	}
	c.AggIters, c.Blocking, c.Graph, c.Average, c.Cycles = r.aggIters, r.blocking, r.graph, r.average, r.cycles
	if c.Graph > 0 && c.Blocking != 0 {
		return nil, usagef("--blocking %d cannot be combined with --cudagraph: a graph replays its iterations without host synchronisation", c.Blocking)
	}
	if c.Datatypes, err = parseList("datatype", r.datatype, AllDatatypes, datatypeAliases); err != nil {
		return nil, err
	}
	if c.Ops, err = parseList("op", r.op, AllOps, nil); err != nil {
		return nil, err
	}
	if err := r.nccl.build(c, fs); err != nil {
		return nil, err
	}
	if c.Kernel, err = ParseSelection(command, r.kernel); err != nil {
		return nil, usagef("--kernel: %v", err)
	}
	// The rank count and layout are not known here; the worker checks them when they are.
	if err := collectives.CheckSweep(command, c.Kernel.Key(), c.Sizes(), c.Datatypes, 0); err != nil {
		return nil, usagef("--kernel %s: %v", c.Kernel.Given, err)
	}
	if err := collectives.CheckUnalign(command, c.Kernel.Key(), c.NCCLTests.Unalign, c.Datatypes); err != nil {
		return nil, usagef("-u/--unalign: %v", err)
	}
	return c, nil
}
