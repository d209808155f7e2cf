package cli

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
)

// NCCLTestsBinaries maps each benchmark program of nccl-tests 2.19.6 to the subcommand
// that runs its collective. Invoked under one of these names (a link in bin/, made by
// make), mscclpp-bench runs that subcommand with the rest of the command line.
var NCCLTestsBinaries = map[string]string{
	"all_reduce_perf":     "allreduce",
	"all_gather_perf":     "allgather",
	"reduce_scatter_perf": "reducescatter",
	"alltoall_perf":       "alltoall",
	"alltoallv_perf":      "alltoallv",
	"broadcast_perf":      "broadcast",
	"reduce_perf":         "reduce",
	"gather_perf":         "gather",
	"scatter_perf":        "scatter",
	"sendrecv_perf":       "sendrecv",
	"hypercube_perf":      "hypercube",
}

// invokedAs is the nccl-tests program name this process was started under, or "".
func invokedAs(argv0 string) string {
	base := filepath.Base(argv0)
	if _, ok := NCCLTestsBinaries[base]; ok {
		return base
	}
	return ""
}

// Args turns a process's argv into Main's arguments. Started under an nccl-tests program
// name (all_reduce_perf ...), the subcommand of that collective goes first; a collective
// that mscclpp-bench does not have yet is a usage error. Otherwise argv[1:] is returned
// as it is.
func Args(argv []string) ([]string, error) {
	return args(argv, func(sub string) bool {
		_, err := collectives.Lookup(sub)
		return err == nil
	})
}

// args is Args with built saying which subcommands mscclpp-bench has.
func args(argv []string, built func(sub string) bool) ([]string, error) {
	if len(argv) == 0 {
		return nil, nil
	}
	name := invokedAs(argv[0])
	if name == "" {
		return argv[1:], nil
	}
	sub := NCCLTestsBinaries[name]
	if !built(sub) {
		var have []string
		for _, n := range slices.Sorted(maps.Values(NCCLTestsBinaries)) {
			if built(n) {
				have = append(have, n)
			}
		}
		return nil, usagef("%s: the %s collective is not built in this mscclpp-bench yet (built: %s)", name, sub, strings.Join(have, ", "))
	}
	return append([]string{sub}, argv[1:]...), nil
}

// FrontEndExecEnv is the variable the front end sets when it execs the GPU worker, so that
// a front end started in the worker's place can tell (cmd/mscclpp-bench) and the worker
// can drop it (it must not reach processes the worker starts).
const FrontEndExecEnv = "MSCCLPP_BENCH_FRONT_END_EXEC"

// MainArgv runs Main on a whole argv (program name first), dispatching on the program
// name as Args does.
func MainArgv(app App, argv []string) int {
	args, err := Args(argv)
	if err != nil {
		if app.Stderr == nil {
			app.Stderr = os.Stderr
		}
		fmt.Fprintf(app.Stderr, "%s: %s\n", app.Name, oneLine(err.Error()))
		return ExitUsage
	}
	return Main(app, args)
}

// commandLine is the command line for reports: as typed when started under an nccl-tests
// name, else the program's name and its arguments.
func commandLine(appName string) []string {
	if len(os.Args) > 0 && invokedAs(os.Args[0]) != "" {
		return slices.Clone(os.Args)
	}
	return append([]string{appName}, os.Args[1:]...)
}

// ncclTestsLong is a collective subcommand's help text: its line, and the nccl-tests
// program it stands in for and also runs as.
func ncclTestsLong(coll collectives.Collective) string {
	return fmt.Sprintf("%s\n\nnccl-tests' %s: the same flags, sizes, columns and bus-bandwidth factor. "+
		"Also runs as %s (a link that make puts in bin/), with every nccl-tests 2.19.6 option.",
		coll.Doc(), coll.TestName(), coll.TestName())
}

// NCCLTestsOptions are nccl-tests 2.19.6's options beyond the sweep's own flags.
type NCCLTestsOptions struct {
	Root         int  // -r: root rank of rooted collectives
	StreamNull   bool // -y: run on the default (legacy NULL) stream
	CPUTime      bool // -C: report the host's enqueue time per operation
	Timestamps   bool // -S: a timestamp on each row
	Memory       bool // -M: report GPU memory use after the footer
	Unalign      int  // -u: offset both buffers by this many elements
	PerIter      bool // -I: time every iteration (CUDA events)
	PerIterSkip  int  // -K: iterations left out of -I's statistics
	ParallelInit bool // -p, as given: no effect (one process per GPU)
	// Notes are header lines for options accepted for compatibility that change nothing
	// here, or that nccl-tests itself turns off in this combination.
	Notes []string
}

// ncclTestsFlags holds those options' flag text.
type ncclTestsFlags struct {
	root, streamNull, cpuTime, timestamps, memory int
	unalign, perIter, perIterSkip, parallelInit   int
	localRegister, ctaPolicy, deviceImpl, devCTAs int
}

// addNCCLTestsFlags adds nccl-tests 2.19.6's remaining options, with its names, letters
// and defaults.
func addNCCLTestsFlags(fs *pflag.FlagSet, r *ncclTestsFlags) {
	fs.IntVarP(&r.parallelInit, "parallel_init", "p", 0, "0/1: threads initialize NCCL concurrently (accepted; no effect: one process per GPU)")
	fs.IntVarP(&r.root, "root", "r", 0, "root rank of rooted collectives (broadcast, reduce, gather, scatter); others print -1")
	fs.IntVarP(&r.streamNull, "stream_null", "y", 0, "0/1: run on the default (NULL) stream instead of a non-blocking stream of our own")
	fs.IntVarP(&r.cpuTime, "report_cputime", "C", 0, "0/1: the time columns show the host's time to enqueue one operation (cputime)")
	fs.IntVarP(&r.timestamps, "report_timestamps", "S", 0, "0/1: a timestamp column (local time) at the end of each row")
	fs.IntVarP(&r.localRegister, "local_register", "R", 0, "0/1/2: register buffers with NCCL (accepted; no effect: our buffers are always registered with every peer)")
	fs.IntVarP(&r.ctaPolicy, "cta_policy", "x", -1, "NCCL's CTA policy (accepted; NCCL only, does not apply)")
	fs.IntVarP(&r.deviceImpl, "device_implementation", "D", 0, "NCCL's device API implementation (accepted; NCCL only, does not apply)")
	fs.IntVarP(&r.devCTAs, "device_cta_count", "V", 16, "CTAs of NCCL's device implementation (accepted; NCCL only, does not apply)")
	fs.IntVarP(&r.memory, "memory", "M", 0, "0/1: report GPU memory usage (set-up, buffers, collectives) after the footer")
	fs.IntVarP(&r.unalign, "unalign", "u", 0, "misalign both buffers by this many elements")
	fs.IntVarP(&r.perIter, "per_iter_timing", "I", 0, "0/1: time every iteration with CUDA events; min, max, p99 and cv columns, *_per_iter in -J (not with -G)")
	fs.IntVarP(&r.perIterSkip, "per_iter_skip", "K", 0, "leave this many leading iterations out of -I's statistics")
}

// build checks the options and fills c.NCCLTests; c's sweep settings (Iters, Graph) must
// be set. Values nccl-tests does not take are usage errors; combinations nccl-tests
// resolves by turning an option off are resolved the same way, with a header note.
func (r *ncclTestsFlags) build(c *CollectiveOptions, fs *pflag.FlagSet) error {
	o := &c.NCCLTests
	bools := []struct {
		flag string
		v    int
		dst  *bool
	}{
		{"parallel_init", r.parallelInit, &o.ParallelInit},
		{"stream_null", r.streamNull, &o.StreamNull},
		{"report_cputime", r.cpuTime, &o.CPUTime},
		{"report_timestamps", r.timestamps, &o.Timestamps},
		{"memory", r.memory, &o.Memory},
		{"per_iter_timing", r.perIter, &o.PerIter},
	}
	for _, b := range bools {
		if b.v != 0 && b.v != 1 {
			f := fs.Lookup(b.flag)
			return usagef("-%s/--%s %d: want 0 or 1", f.Shorthand, b.flag, b.v)
		}
		*b.dst = b.v == 1
	}
	if r.root < 0 {
		return usagef("-r/--root %d: want a rank, 0 or more", r.root)
	}
	if r.unalign < 0 || r.unalign > 1<<20 {
		return usagef("-u/--unalign %d: want 0 to %d elements", r.unalign, 1<<20)
	}
	if r.perIterSkip < 0 {
		return usagef("-K/--per_iter_skip %d: want 0 or more", r.perIterSkip)
	}
	if r.localRegister < 0 || r.localRegister > 2 {
		return usagef("-R/--local_register %d: want 0, 1 or 2", r.localRegister)
	}
	o.Root, o.Unalign, o.PerIterSkip = r.root, r.unalign, r.perIterSkip
	if o.StreamNull && c.Graph > 0 {
		return usagef("-y/--stream_null 1 cannot be combined with -G/--cudagraph: CUDA cannot capture the default stream")
	}
	note := func(format string, args ...any) { o.Notes = append(o.Notes, fmt.Sprintf(format, args...)) }
	if o.PerIter && c.Graph > 0 {
		o.PerIter = false
		note("-I 1 (per_iter_timing) is off with -G (cudagraph), as in nccl-tests: a graph replays its iterations without events between them")
	}
	if o.PerIterSkip > 0 && !o.PerIter {
		o.PerIterSkip = 0
		note("-K (per_iter_skip) is off: it needs -I 1, as in nccl-tests")
	}
	if o.PerIterSkip >= c.Iters {
		o.PerIterSkip = 0
		note("-K (per_iter_skip) must be below -n %d; off, as in nccl-tests", c.Iters)
	}
	if o.ParallelInit {
		note("-p 1 (parallel_init) does not apply: one process per GPU, each rank sets itself up in its own process")
	}
	if r.localRegister != 0 {
		note("-R %d (local_register) does not apply: mscclpp-bench registers its buffers with every peer at set-up, always", r.localRegister)
	}
	for _, f := range []string{"cta_policy", "device_implementation", "device_cta_count"} {
		if fl := fs.Lookup(f); fl != nil && fl.Changed {
			note("-%s %s (%s) does not apply: an NCCL setting, and NCCL is not used", fl.Shorthand, fl.Value, f)
		}
	}
	return nil
}
