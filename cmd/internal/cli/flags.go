package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	// ParseMode reads the --transport values of the transports registered with channels.
	_ "github.com/mscclpp-bench/mscclpp-bench/channels/transports"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bytesize"
)

// commonFlags are the flags every GPU command takes (sizes, iterations, checks, limits,
// bootstrap, transport, output), as text before validation. Each command adds its own
// flags beside them (collective.go, pingpong.go, acceptance.go).
type commonFlags struct {
	minBytes, maxBytes, stepBytes string
	stepFactor                    int64
	iters, warmup, check          int
	nthreads, ngpus               int
	timeout                       float64
	json, transport, progress     string
	bootTimeout                   time.Duration
	bootAddr                      string
}

// add defines the common flags on fs with the command's default sizes.
func (r *commonFlags) add(fs *pflag.FlagSet, defMin, defMax string, defFactor int64) {
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

// intCheck is one integer flag's allowed range.
type intCheck struct {
	name     string
	v        int
	min, max int
}

// checkInts refuses a value out of its range, naming the flag.
func checkInts(checks []intCheck) error {
	for _, ch := range checks {
		if ch.v < ch.min || ch.v > ch.max {
			if ch.name == "--nthreads" || ch.name == "--ngpus" {
				return usagef("%s %d: mscclpp-bench drives one GPU per process; launch one process per GPU with mpirun -np N", ch.name, ch.v)
			}
			return usagef("%s %d is out of range [%d, %d]", ch.name, ch.v, ch.min, ch.max)
		}
	}
	return nil
}

// build validates the common flags into Common; inputs are the files the command reads,
// which -J may not name.
func (r *commonFlags) build(inputs ...string) (Common, error) {
	c, err := r.parse(inputs...)
	if err != nil {
		return Common{}, err
	}
	return *c, nil
}

// parse is build's work, on a Common of its own.
func (r *commonFlags) parse(inputs ...string) (*Common, error) {
	c := &Common{BootstrapAddr: r.bootAddr}
	switch r.progress {
	case "auto", "on", "off":
		c.Progress = r.progress
	default:
		return nil, usagef("--progress %q: want auto, on or off", r.progress)
	}
	var err error
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
	if err := checkInts([]intCheck{
		{"--iters", r.iters, 1, 1 << 24},
		{"--warmup_iters", r.warmup, 0, 1 << 24},
		{"--check", r.check, 0, 1 << 10},
		{"--nthreads", r.nthreads, 1, 1},
		{"--ngpus", r.ngpus, 1, 1},
	}); err != nil {
		return nil, err
	}
	c.Iters, c.Warmup, c.Check = r.iters, r.warmup, r.check
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
		if err := checkOutputPath("--output_file", r.json, inputs...); err != nil {
			return nil, err
		}
		c.JSONPath = r.json
	}
	if c.Env, err = ReadEnv(os.Getenv); err != nil {
		return nil, err
	}
	if err := checkLaunchEnv(); err != nil {
		return nil, err
	}
	if p := c.Env.CPUProfile; p != "" { // each rank writes p.RANK: rank 0's file stands for all
		if err := checkOutputPath(envCPUProfile, p+".0", inputs...); err != nil {
			return nil, err
		}
	}
	mode, err := channels.ParseMode(r.transport) // the one list of transport names
	if err != nil {
		return nil, usagef("--transport: %v", err)
	}
	c.Transport = mode
	return c, nil
}
