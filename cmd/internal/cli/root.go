package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bytesize"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mscclpp-bench/mscclpp-bench/acceptance"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
)

// Runner runs a validated benchmark subcommand.
type Runner func(ctx context.Context, cfg *Config) error

// App wires the command tree to its environment.
type App struct {
	Name    string // program name in messages
	Version string // version string for `version` and reports
	Run     Runner // runs allgather, allreduce, pingpong, acceptance
	Stdout  io.Writer
	Stderr  io.Writer
	// Extra adds subcommands (compare, plot, ...) that need no GPU.
	Extra []func(app *App) *cobra.Command
}

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1 // the run failed: an error, a timeout or wrong results
	ExitUsage   = 2 // bad flags or combinations; nothing ran
)

// runFailure marks errors that come from running, not from the command line.
type runFailure struct{ err error }

func (f *runFailure) Error() string { return f.err.Error() }
func (f *runFailure) Unwrap() error { return f.err }

// Main runs the command line args (without the program name) and returns the exit code.
// Errors are printed as one line on Stderr.
func Main(app App, args []string) int {
	if app.Stdout == nil {
		app.Stdout = os.Stdout
	}
	if app.Stderr == nil {
		app.Stderr = os.Stderr
	}
	root := NewRoot(&app)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(app.Stderr, "%s: %s\n", app.Name, oneLine(err.Error()))
	var rf *runFailure
	if errors.As(err, &rf) && !IsUsage(rf.err) {
		return ExitFailure
	}
	return ExitUsage
}

// Failure marks err as a failed run rather than bad input: a subcommand that returns it
// makes Main exit with ExitFailure (1), unless err is itself a UsageError. nil stays nil.
func Failure(err error) error {
	if err == nil {
		return nil
	}
	return &runFailure{err}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// NewRoot builds the command tree.
func NewRoot(app *App) *cobra.Command {
	root := &cobra.Command{
		Use:           app.Name,
		Short:         "GPU collective-communication benchmark and test suite (MSCCL++ in Go)",
		Long:          app.Name + " runs MSCCL++-style collectives over NVLink memory and port channels and reports\nthem in nccl-tests' format. Launch one process per GPU: mpirun -np 8 " + app.Name + " allgather -b 8 -e 1G -f 2",
		Version:       app.Version,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("{{.Name}} {{.Version}}\n") // as the version command prints it
	root.SetOut(app.Stdout)
	root.SetErr(app.Stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usagef("%v", err) })
	root.AddCommand(
		benchCommand(app, "allgather", "All-gather: every rank receives every rank's buffer", true, false),
		benchCommand(app, "allreduce", "All-reduce: every rank receives the reduction of all ranks' buffers", true, true),
		pingpongCommand(app),
		acceptanceCommand(app),
		&cobra.Command{
			Use:   "version",
			Short: "Print the version",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				fmt.Fprintf(app.Stdout, "%s %s\n", app.Name, app.Version)
				return nil
			},
		},
	)
	for _, extra := range app.Extra {
		root.AddCommand(extra(app))
	}
	refuseUnknownTopics(root)
	return root
}

// rawFlags holds flag text before validation.
type rawFlags struct {
	minBytes, maxBytes, stepBytes string
	stepFactor                    int64
	iters, warmup, aggIters       int
	check, blocking, graph        int
	cycles                        int
	average, nthreads, ngpus      int
	timeout                       float64
	datatype, op, json, kernel    string
	transport                     string
	summary                       bool
	bootTimeout                   time.Duration
	bootAddr                      string
	pair, channels                string
	progress, spec                string
}

func addCommonFlags(fs *pflag.FlagSet, r *rawFlags, defMin, defMax string, defFactor int64) {
	fs.StringVarP(&r.minBytes, "minbytes", "b", defMin, "minimum size in bytes (K, M, G suffixes)")
	fs.StringVarP(&r.maxBytes, "maxbytes", "e", defMax, "maximum size in bytes (K, M, G suffixes)")
	fs.StringVarP(&r.stepBytes, "stepbytes", "i", "1M", "size increment in bytes when --stepfactor is 1")
	fs.Int64VarP(&r.stepFactor, "stepfactor", "f", defFactor, "size multiplication factor (1: add --stepbytes)")
	fs.IntVarP(&r.iters, "iters", "n", 20, "timed iterations per size")
	fs.IntVarP(&r.warmup, "warmup_iters", "w", 1, "warmup iterations per size")
	fs.IntVarP(&r.check, "check", "c", 1, "check results this many times per size (0: no check)")
	fs.Float64VarP(&r.timeout, "timeout", "T", 30, "seconds any wait (semaphore, proxy, kernel, stream) may last")
	fs.StringVarP(&r.json, "output_file", "J", "", "also write results as nccl-tests JSON to this .json file")
	fs.StringVar(&r.transport, "transport", "auto", "how ranks connect: auto (CUDA IPC within a host; between hosts InfiniBand where both ranks have an HCA, else Ethernet), nvlink, ethernet or ib")
	fs.DurationVar(&r.bootTimeout, "bootstrap-timeout", 0, "how long bootstrap waits for peers (default: $MSCCLPP_BENCH_BOOTSTRAP_TIMEOUT or 30s)")
	fs.StringVar(&r.bootAddr, "bootstrap-addr", "", "root address [interface:]ip:port (default: automatic)")
	fs.IntVarP(&r.nthreads, "nthreads", "t", 1, "threads per process (only 1: launch one process per GPU)")
	fs.IntVarP(&r.ngpus, "ngpus", "g", 1, "GPUs per thread (only 1: launch one process per GPU)")
	fs.StringVar(&r.progress, "progress", "auto", "progress line on stderr: auto (when a terminal shows it), on or off")
}

func benchCommand(app *App, name, short string, hasKernel, hasOp bool) *cobra.Command {
	r := &rawFlags{}
	cmd := &cobra.Command{
		Use:   name,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := r.build(name, cmd.Flags(), hasOp)
			if err != nil {
				return err
			}
			return run(app, cmd, cfg)
		},
	}
	fs := cmd.Flags()
	addCommonFlags(fs, r, "32M", "32M", 1)
	fs.IntVarP(&r.aggIters, "agg_iters", "m", 1, "collectives aggregated per timed iteration")
	fs.StringVarP(&r.datatype, "datatype", "d", "float", "element type: "+strings.Join(AllDatatypes, ", ")+" or all")
	if hasOp {
		fs.StringVarP(&r.op, "op", "o", "sum", "reduction: "+strings.Join(AllOps, ", ")+" or all")
	}
	fs.IntVarP(&r.blocking, "blocking", "z", 0, "0: asynchronous; 1: synchronize and barrier after each iteration; 2: synchronize only")
	fs.IntVarP(&r.graph, "cudagraph", "G", 0, "capture the iterations in a CUDA graph and launch it this many times (0: no graph)")
	fs.IntVarP(&r.average, "average", "a", 1, "report time of 0: rank 0, 1: average, 2: minimum, 3: maximum over ranks")
	fs.StringVarP(&r.kernel, "kernel", "k", "auto", "algorithm: auto, all, or a name or number ("+kernelList(name)+")")
	fs.BoolVar(&r.summary, "summary", false, "after the table, print the best algorithm per size (useful with -k all)")
	fs.IntVarP(&r.cycles, "run_cycles", "N", 1, "run and print the whole sweep this many times, with each rank's memory after each (0: until stopped)")
	return cmd
}

func pingpongCommand(app *App) *cobra.Command {
	r := &rawFlags{}
	cmd := &cobra.Command{
		Use:   "pingpong",
		Short: "Point-to-point latency and bandwidth between pairs of ranks over memory and port channels",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := r.build("pingpong", cmd.Flags(), false)
			if err != nil {
				return err
			}
			return run(app, cmd, cfg)
		},
	}
	fs := cmd.Flags()
	addCommonFlags(fs, r, "1M", "256M", 2)
	fs.StringVar(&r.pair, "pair", "", "only the pair i,j (default: every pair)")
	fs.StringVar(&r.channels, "channel", "all", "channels to measure: memory, port or all")
	return cmd
}

func acceptanceCommand(app *App) *cobra.Command {
	r := &rawFlags{}
	cmd := &cobra.Command{
		Use:   "acceptance",
		Short: "Hardware acceptance: discover the node, measure every pair and the collectives, PASS or FAIL against thresholds",
		Long: `acceptance runs under mpirun with one rank per GPU of the node. It lists the GPUs, their
peer access and NVLink counts (through NVML), measures signal latency and put bandwidth of
every pair of ranks over memory and port channels, runs allreduce and allgather at the
spec's sizes, verifies all received data, and compares each figure with the thresholds:
built in for H100 SXM and H200 SXM, or from --spec FILE (YAML or JSON; keys it sets
override the built-in ones). It exits 1 when any check fails and names the pair.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := r.build("acceptance", cmd.Flags(), false)
			if err != nil {
				return err
			}
			return run(app, cmd, cfg)
		},
	}
	fs := cmd.Flags()
	addCommonFlags(fs, r, "8", "8", 1)
	for _, name := range []string{"minbytes", "maxbytes", "stepbytes", "stepfactor"} {
		_ = fs.MarkHidden(name) // sizes come from the spec
	}
	fs.StringVar(&r.spec, "spec", "", "thresholds file (YAML or JSON); default: built in for the GPU model")
	fs.Lookup("output_file").Usage = "also write the report (node, figures, thresholds, checks) as JSON to this .json file (not the spec)"
	fs.Lookup("iters").Usage = "timed iterations of each bandwidth and collective measurement"
	return cmd
}

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

func run(app *App, cmd *cobra.Command, cfg *Config) error {
	if app.Run == nil {
		return &runFailure{fmt.Errorf("%s needs a GPU runner, and none is built in", cfg.Command)}
	}
	cfg.Args = append([]string{app.Name}, os.Args[1:]...)
	if err := app.Run(cmd.Context(), cfg); err != nil {
		return &runFailure{err}
	}
	return nil
}

// build validates the flags into a Config.
func (r *rawFlags) build(command string, fs *pflag.FlagSet, hasOp bool) (*Config, error) {
	c := &Config{Command: command, Kernel: r.kernel, Summary: r.summary, Pair: r.pair, Channels: r.channels, BootstrapAddr: r.bootAddr, SpecPath: r.spec}
	switch r.progress {
	case "auto", "on", "off":
		c.Progress = r.progress
	default:
		return nil, usagef("--progress %q: want auto, on or off", r.progress)
	}
	var err error
	if command == "acceptance" {
		if err := refuseSweepFlags(fs); err != nil {
			return nil, err
		}
	}
	if c.MinBytes, err = bytesize.Parse(r.minBytes); err != nil {
		return nil, usagef("--minbytes: %v", err)
	}
	if c.MaxBytes, err = bytesize.Parse(r.maxBytes); err != nil {
		return nil, usagef("--maxbytes: %v", err)
	}
	if c.StepBytes, err = bytesize.Parse(r.stepBytes); err != nil {
		return nil, usagef("--stepbytes: %v", err)
	}
	if c.MinBytes > c.MaxBytes {
		return nil, usagef("invalid sizes for 'minbytes' and 'maxbytes': %d > %d", c.MinBytes, c.MaxBytes)
	}
	c.StepFactor = r.stepFactor
	if c.StepFactor < 1 {
		return nil, usagef("--stepfactor must be at least 1, not %d", c.StepFactor)
	}
	if c.StepFactor == 1 && c.StepBytes < 1 && c.MinBytes != c.MaxBytes {
		return nil, usagef("--stepbytes must be positive when --stepfactor is 1")
	}
	if err := checkMaxBytes("--maxbytes", c.MaxBytes); err != nil {
		return nil, err
	}
	if err := c.checkSweepLength(); err != nil {
		return nil, err
	}
	checks := []struct {
		name   string
		v, min int
		max    int
	}{
		{"--iters", r.iters, 1, 1 << 24},
		{"--warmup_iters", r.warmup, 0, 1 << 24},
		{"--check", r.check, 0, 1 << 10},
		{"--agg_iters", r.aggIters, 1, 1 << 16},
		{"--blocking", r.blocking, 0, 2},
		{"--cudagraph", r.graph, 0, 1 << 20},
		{"--run_cycles", r.cycles, 0, 1 << 24},
		{"--average", r.average, 0, 3},
		{"--nthreads", r.nthreads, 1, 1},
		{"--ngpus", r.ngpus, 1, 1},
	}
	for _, ch := range checks {
		if fs.Lookup(strings.TrimPrefix(ch.name, "--")) == nil {
			continue // not a flag of this command
		}
		if ch.v < ch.min || ch.v > ch.max {
			if ch.name == "--nthreads" || ch.name == "--ngpus" {
				return nil, usagef("%s %d: mscclpp-bench drives one GPU per process; launch one process per GPU with mpirun -np N", ch.name, ch.v)
			}
			return nil, usagef("%s %d is out of range [%d, %d]", ch.name, ch.v, ch.min, ch.max)
		}
	}
	c.Iters, c.Warmup, c.Check, c.AggIters = r.iters, r.warmup, r.check, r.aggIters
	c.Blocking, c.Graph, c.Average, c.Cycles = r.blocking, r.graph, r.average, r.cycles
	if c.Graph > 0 && c.Blocking != 0 {
		return nil, usagef("--blocking %d cannot be combined with --cudagraph: a graph replays its iterations without host synchronisation", c.Blocking)
	}
	c.Timeout = time.Duration(r.timeout * float64(time.Second))
	if math.IsNaN(r.timeout) || r.timeout > 86400 || c.Timeout < time.Millisecond {
		return nil, usagef("--timeout %g: want seconds from 0.001 to 86400", r.timeout)
	}
	if r.bootTimeout < 0 {
		return nil, usagef("--bootstrap-timeout must not be negative")
	}
	c.BootstrapTimeout = r.bootTimeout
	if err := checkBootstrapSettings(c.BootstrapAddr, c.BootstrapTimeout); err != nil {
		return nil, err
	}
	if r.json != "" {
		if !strings.EqualFold(filepath.Ext(r.json), ".json") {
			return nil, usagef("--output_file %q: only .json output is supported", r.json)
		}
		var inputs []string
		if c.SpecPath != "" {
			inputs = append(inputs, c.SpecPath)
		}
		if err := checkOutputPath("--output_file", r.json, inputs...); err != nil {
			return nil, err
		}
		c.JSONPath = r.json
	}
	switch r.transport {
	case "nvlink", "cudaipc":
		c.Transport = "nvlink"
	case "auto", "ethernet", "ib":
		c.Transport = r.transport
	default:
		return nil, usagef("--transport %q: want auto, nvlink, ethernet or ib", r.transport)
	}
	if command == "acceptance" {
		if c.SpecPath != "" {
			if err := checkSpec(c.SpecPath); err != nil {
				return nil, usagef("--spec: %v", err)
			}
		}
		return c, nil
	}
	if command == "pingpong" {
		if c.Pair != "" {
			if _, _, err := ParsePair(c.Pair); err != nil {
				return nil, usagef("--pair: %v", err)
			}
		}
		switch c.Channels {
		case "memory", "port", "all":
		default:
			return nil, usagef("--channel %q: want memory, port or all", c.Channels)
		}
		return c, nil
	}
	if c.Datatypes, err = parseList("datatype", r.datatype, AllDatatypes, datatypeAliases); err != nil {
		return nil, err
	}
	c.Ops = []string{"none"}
	if hasOp {
		if c.Ops, err = parseList("op", r.op, AllOps, nil); err != nil {
			return nil, err
		}
	}
	if err := collectives.ValidKernel(command, c.Kernel); err != nil {
		return nil, usagef("--kernel: %v", err)
	}
	// The rank count is not known here; the worker checks rank limits when it is.
	if err := collectives.CheckSweep(command, c.Kernel, c.Sizes(), c.Datatypes, 0); err != nil {
		return nil, usagef("--kernel %s: %v", c.Kernel, err)
	}
	return c, nil
}

// checkSpec reads a spec file over the built-in H200 thresholds, so that a missing or bad
// file is a usage error before any GPU work; the run reads it again over its own model's.
func checkSpec(path string) error {
	base, err := acceptance.DefaultSpec("NVIDIA H200")
	if err != nil {
		return err
	}
	spec, err := acceptance.LoadSpec(path, base)
	if err != nil {
		return err
	}
	if err := checkMaxBytes("put_bytes", spec.PutBytes); err != nil {
		return err
	}
	for i, l := range spec.Collectives {
		if err := checkMaxBytes(fmt.Sprintf("collectives[%d].size", i), l.Size); err != nil {
			return err
		}
	}
	return nil
}

// ParsePair reads "i,j" with i != j, both non-negative.
func ParsePair(s string) (int, int, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return 0, 0, fmt.Errorf("%q: want two ranks i,j", s)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(parts[0]))
	j, err2 := strconv.Atoi(strings.TrimSpace(parts[1]))
	if err1 != nil || err2 != nil || i < 0 || j < 0 || i == j {
		return 0, 0, fmt.Errorf("%q: want two different non-negative ranks i,j", s)
	}
	return i, j, nil
}
