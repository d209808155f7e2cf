package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ib"
)

// fakeRunner records the Plan each run was given and returns err.
type fakeRunner struct {
	plans []*Plan
	err   error
}

func (f *fakeRunner) run(_ context.Context, plan *Plan) error {
	f.plans = append(f.plans, plan)
	return f.err
}

type result struct {
	code           int
	stdout, stderr string
	plan           *Plan // the Plan the runner got; nil if it was not called
	// The plan's options: cfg a collective's, pp pingpong's, acc acceptance's (nil when
	// the plan is another subcommand's), common those of whichever it is.
	cfg    *CollectiveOptions
	pp     *PingPongOptions
	acc    *AcceptanceOptions
	common *Common
	calls  int
}

func mainWith(t *testing.T, runErr error, args ...string) result {
	t.Helper()
	f := &fakeRunner{err: runErr}
	var out, errOut bytes.Buffer
	code := Main(App{Name: "mscclpp-bench", Version: "v1.2.3-test", Run: f.run, Stdout: &out, Stderr: &errOut}, args)
	r := result{code: code, stdout: out.String(), stderr: errOut.String(), calls: len(f.plans)}
	if len(f.plans) > 0 {
		r.plan = f.plans[len(f.plans)-1]
		r.cfg, r.pp, r.acc, r.common = r.plan.Collective, r.plan.PingPong, r.plan.Acceptance, r.plan.Common()
	}
	return r
}

// checkOneLineError checks stderr holds exactly one line "mscclpp-bench: ...".
func checkOneLineError(t *testing.T, args []string, stderr string) {
	t.Helper()
	if !strings.HasPrefix(stderr, "mscclpp-bench: ") {
		t.Errorf("%v: stderr %q does not start with %q", args, stderr, "mscclpp-bench: ")
	}
	if !strings.HasSuffix(stderr, "\n") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("%v: stderr %q is not exactly one line", args, stderr)
	}
	if len(strings.TrimSpace(strings.TrimPrefix(stderr, "mscclpp-bench: "))) == 0 {
		t.Errorf("%v: stderr %q has no message", args, stderr)
	}
}

func TestMainUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string // a substring of the message
	}{
		{[]string{"allgather", "-b", "1G", "-e", "8"}, "minbytes"},
		{[]string{"allreduce", "-b", "1G", "-e", "8"}, "minbytes"},
		{[]string{"allgather", "-b", "abc"}, "--minbytes"},
		{[]string{"allgather", "-e", "1T"}, "--maxbytes"},
		{[]string{"allgather", "-e", "128G"}, "64 GiB"},
		{[]string{"allgather", "-i", "-5"}, "--stepbytes"},
		{[]string{"allgather", "-b", "8", "-e", "64", "-f", "1", "-i", "0"}, "--stepbytes"},
		{[]string{"allgather", "-f", "0"}, "--stepfactor"},
		{[]string{"allgather", "-d", "nope"}, "datatype"},
		{[]string{"allreduce", "-d", "float,complex"}, "complex"},
		{[]string{"allreduce", "-o", "nope"}, "op"},
		{[]string{"allgather", "-o", "bogus"}, `invalid op "bogus"`},
		{[]string{"allgather", "-k", "nope"}, "--kernel"},
		{[]string{"allreduce", "-k", "42"}, "--kernel"},
		{[]string{"allgather", "--transport", "tcp"}, "--transport"},
		{[]string{"pingpong", "--transport", "IB"}, "want auto, nvlink, ib or ethernet"},
		{[]string{"allgather", "-t", "2"}, "--nthreads"},
		{[]string{"allgather", "-g", "2"}, "--ngpus"},
		{[]string{"pingpong", "-g", "2"}, "--ngpus"},
		{[]string{"allreduce", "-z", "1", "-G", "5"}, "--cudagraph"},
		{[]string{"allreduce", "-z", "2", "-G", "1"}, "--cudagraph"},
		{[]string{"allreduce", "-z", "4"}, "--blocking"},
		{[]string{"allreduce", "-a", "4"}, "--average"},
		{[]string{"allreduce", "-N", "-1"}, "--run_cycles"},
		{[]string{"allreduce", "-n", "0"}, "--iters"},
		{[]string{"allreduce", "-w", "-1"}, "--warmup_iters"},
		{[]string{"allreduce", "-m", "0"}, "--agg_iters"},
		{[]string{"allreduce", "-c", "-1"}, "--check"},
		{[]string{"allreduce", "-T", "0"}, "--timeout"},
		{[]string{"allreduce", "-T", "-3"}, "--timeout"},
		{[]string{"allreduce", "-T", "100000"}, "--timeout"},
		{[]string{"allreduce", "--bootstrap-timeout", "-1s"}, "--bootstrap-timeout"},
		{[]string{"allgather", "-J", "out.txt"}, "json"},
		{[]string{"allgather", "-J", "out"}, "json"},
		{[]string{"pingpong", "--pair", "0,0"}, "--pair"},
		{[]string{"pingpong", "--pair", "1"}, "--pair"},
		{[]string{"pingpong", "--channel", "nvlink"}, "--channel"},
		{[]string{"pingpong", "-d", "float"}, "unknown shorthand flag"},
		{[]string{"nope"}, `unknown subcommand "nope"; the subcommands are acceptance, allgather, allreduce,`},
		// A forgotten subcommand: say which exist, not only that the flag is unknown.
		{[]string{"-b", "8"}, "unknown shorthand flag: 'b' in -b: flags go after a subcommand (mscclpp-bench SUBCOMMAND [flags]); the subcommands are acceptance, allgather, allreduce,"},
		{[]string{"--minbytes=8", "-e", "1G"}, "unknown flag: --minbytes: flags go after a subcommand"},
		{[]string{"all_reduce", "-b", "8"}, `unknown subcommand "all_reduce" (did you mean allreduce?); the subcommands are`},
		{[]string{"allreduc"}, `unknown subcommand "allreduc" (did you mean allreduce?)`},
		{[]string{strings.Repeat("x", 100000)}, `… (100000 bytes); the subcommands are`},
		{[]string{"allgather", "--nope"}, "unknown flag"},
		{[]string{"allgather", "-n", "many"}, `-n/--iters "many": want a whole number`},
		{[]string{"allgather", "extra-arg"}, "unknown command"},
		{[]string{"version", "extra-arg"}, "unknown command"},
	}
	for _, tt := range tests {
		r := mainWith(t, nil, tt.args...)
		if r.code != ExitUsage {
			t.Errorf("%v: exit code %d, want %d (stderr %q)", tt.args, r.code, ExitUsage, r.stderr)
		}
		if r.calls != 0 {
			t.Errorf("%v: the runner was called on a usage error", tt.args)
		}
		checkOneLineError(t, tt.args, r.stderr)
		if !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: stderr %q does not mention %q", tt.args, r.stderr, tt.want)
		}
	}
}

func TestMainRunnerError(t *testing.T) {
	args := []string{"allreduce", "-b", "8", "-e", "8"}
	r := mainWith(t, errors.New("rank 3: wrong results\n  in 2 places"), args...)
	if r.code != ExitFailure {
		t.Fatalf("exit code %d, want %d", r.code, ExitFailure)
	}
	if r.calls != 1 {
		t.Fatalf("runner called %d times, want 1", r.calls)
	}
	checkOneLineError(t, args, r.stderr)
	if want := "mscclpp-bench: rank 3: wrong results in 2 places\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}

	// A usage error from the runner is still a usage error.
	r = mainWith(t, &UsageError{Msg: "bad combination"}, args...)
	if r.code != ExitUsage {
		t.Errorf("runner usage error: exit code %d, want %d", r.code, ExitUsage)
	}
	checkOneLineError(t, args, r.stderr)
}

func TestMainNoRunner(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Main(App{Name: "mscclpp-bench", Version: "v", Stdout: &out, Stderr: &errOut}, []string{"allgather"})
	if code != ExitFailure {
		t.Errorf("exit code %d, want %d", code, ExitFailure)
	}
	checkOneLineError(t, []string{"allgather"}, errOut.String())
}

func TestMainDefaults(t *testing.T) {
	for _, cmd := range []string{"allgather", "allreduce"} {
		t.Run(cmd, func(t *testing.T) {
			r := mainWith(t, nil, cmd)
			if r.code != ExitOK || r.cfg == nil {
				t.Fatalf("exit code %d, runner called %d times; stderr %q", r.code, r.calls, r.stderr)
			}
			if r.stderr != "" {
				t.Errorf("stderr %q, want empty", r.stderr)
			}
			c := r.cfg
			wantOps := []string{"sum"} // nccl-tests' default, whether or not the collective reduces
			checks := []struct {
				name      string
				got, want any
			}{
				{"Command", r.plan.Command, cmd},
				{"Collective", c.Collective, cmd},
				{"MinBytes (-b)", c.MinBytes, int64(32 << 20)},
				{"MaxBytes (-e)", c.MaxBytes, int64(32 << 20)},
				{"StepFactor (-f)", c.StepFactor, int64(1)},
				{"StepBytes (-i)", c.StepBytes, int64(1 << 20)},
				{"Iters (-n)", c.Iters, 20},
				{"Warmup (-w)", c.Warmup, 1},
				{"Check (-c)", c.Check, 1},
				{"AggIters (-m)", c.AggIters, 1},
				{"Average (-a)", c.Average, 1},
				{"Graph (-G)", c.Graph, 0},
				{"Blocking (-z)", c.Blocking, 0},
				{"Cycles (-N)", c.Cycles, 1},
				{"Datatypes (-d)", c.Datatypes, []string{"float"}},
				{"Ops (-o)", c.Ops, wantOps},
				{"Kernel (-k)", c.Kernel, Selection{Mode: SelectAuto, Given: "auto"}},
				{"Transport", c.Transport, channels.ModeAuto},
				{"Timeout (-T)", c.Timeout, 30 * time.Second},
				{"JSONPath (-J)", c.JSONPath, ""},
				{"Summary", c.Summary, false},
				{"Sizes", c.Sizes(), []int64{32 << 20}},
			}
			for _, ch := range checks {
				if !reflect.DeepEqual(ch.got, ch.want) {
					t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
				}
			}
		})
	}
}

func TestMainFlags(t *testing.T) {
	r := mainWith(t, nil, "allreduce", "-b", "8", "-e", "128M", "-f", "2", "-n", "5", "-w", "3", "-c", "0",
		"-m", "4", "-a", "3", "-G", "7", "-N", "0", "-k", "rsag", "-T", "2.5", "-J", "Out.JSON", "--summary", "--repeat-check",
		"--transport", "cudaipc", "--bootstrap-timeout", "45s", "--bootstrap-addr", "eth0:10.0.0.1:5000")
	if r.code != ExitOK || r.cfg == nil {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	c := r.cfg
	checks := []struct {
		name      string
		got, want any
	}{
		{"MinBytes", c.MinBytes, int64(8)},
		{"MaxBytes", c.MaxBytes, int64(128 << 20)},
		{"StepFactor", c.StepFactor, int64(2)},
		{"Iters", c.Iters, 5},
		{"Warmup", c.Warmup, 3},
		{"Check", c.Check, 0},
		{"AggIters", c.AggIters, 4},
		{"Average", c.Average, 3},
		{"Graph", c.Graph, 7},
		{"Cycles", c.Cycles, 0},
		{"Kernel", c.Kernel, Selection{Mode: SelectOne, Algorithm: "rsag", Given: "rsag"}},
		{"Timeout", c.Timeout, 2500 * time.Millisecond},
		{"JSONPath", c.JSONPath, "Out.JSON"},
		{"Summary", c.Summary, true},
		{"RepeatCheck", c.RepeatCheck, true},
		{"Transport", c.Transport, cudaipc.Mode},
		{"BootstrapTimeout", c.BootstrapTimeout, 45 * time.Second},
		{"BootstrapAddr", c.BootstrapAddr, "eth0:10.0.0.1:5000"},
	}
	for _, ch := range checks {
		if !reflect.DeepEqual(ch.got, ch.want) {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
	if n := len(c.Sizes()); n != 25 { // 8 B .. 128 MiB by 2: 2^3 .. 2^27
		t.Errorf("len(Sizes()) = %d, want 25", n)
	}
}

func TestMainDatatypesAndOps(t *testing.T) {
	tests := []struct {
		args      []string
		datatypes []string
		ops       []string
	}{
		{[]string{"allreduce", "-d", "all", "-o", "all"}, AllDatatypes, AllOps},
		{[]string{"allreduce", "-d", "fp16"}, []string{"half"}, []string{"sum"}},
		{[]string{"allreduce", "-d", "char"}, []string{"int8"}, []string{"sum"}},
		{[]string{"allreduce", "-d", "bf16,fp64", "-o", "max,avg"}, []string{"bfloat16", "double"}, []string{"max", "avg"}},
		{[]string{"allreduce", "--datatype", "int", "--op", "prod"}, []string{"int32"}, []string{"prod"}},
		{[]string{"allgather", "-d", "all"}, AllDatatypes, []string{"sum"}},
		{[]string{"allgather", "-d", "uint,float16", "-o", "all"}, []string{"uint32", "half"}, AllOps},
		{[]string{"sendrecv", "-o", "min,max"}, []string{"float"}, []string{"min", "max"}},
	}
	for _, tt := range tests {
		r := mainWith(t, nil, tt.args...)
		if r.code != ExitOK || r.cfg == nil {
			t.Errorf("%v: exit code %d, stderr %q", tt.args, r.code, r.stderr)
			continue
		}
		if !reflect.DeepEqual(r.cfg.Datatypes, tt.datatypes) {
			t.Errorf("%v: Datatypes = %v, want %v", tt.args, r.cfg.Datatypes, tt.datatypes)
		}
		if !reflect.DeepEqual(r.cfg.Ops, tt.ops) {
			t.Errorf("%v: Ops = %v, want %v", tt.args, r.cfg.Ops, tt.ops)
		}
	}
	if len(AllDatatypes) != 10 || len(AllOps) != 5 {
		t.Errorf("AllDatatypes has %d types, AllOps %d ops; want 10 and 5", len(AllDatatypes), len(AllOps))
	}
}

func TestMainKernels(t *testing.T) {
	for _, tt := range []struct{ cmd, k string }{
		{"allgather", "auto"}, {"allgather", "all"}, {"allgather", "ll16"}, {"allgather", "3"},
		{"allreduce", "ll8"}, {"allreduce", "0"}, {"allreduce", "local"}, {"allreduce", "99"},
	} {
		r := mainWith(t, nil, tt.cmd, "-k", tt.k, "-b", "8", "-e", "1M") // within ll8's sizes
		if r.code != ExitOK || r.cfg == nil || r.cfg.Kernel.Given != tt.k {
			t.Errorf("%s -k %s: exit code %d, stderr %q, cfg %+v", tt.cmd, tt.k, r.code, r.stderr, r.cfg)
		}
	}
}

func TestMainVersion(t *testing.T) {
	r := mainWith(t, nil, "version")
	if r.code != ExitOK {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	if want := "mscclpp-bench v1.2.3-test\n"; r.stdout != want {
		t.Errorf("stdout %q, want %q", r.stdout, want)
	}
	if r.calls != 0 {
		t.Error("version called the runner")
	}
}

func TestMainHelp(t *testing.T) {
	for _, args := range [][]string{nil, {"--help"}, {"allgather", "--help"}} {
		r := mainWith(t, nil, args...)
		if r.code != ExitOK {
			t.Errorf("%v: exit code %d, stderr %q", args, r.code, r.stderr)
		}
		if r.calls != 0 {
			t.Errorf("%v: help called the runner", args)
		}
		if !strings.Contains(r.stdout, "mscclpp-bench") {
			t.Errorf("%v: help output %q does not name the program", args, r.stdout)
		}
	}
	// allgather's help lists its algorithms for -k.
	r := mainWith(t, nil, "allgather", "--help")
	for _, want := range []string{"0=ll16", "99=local", "--minbytes"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("allgather --help does not mention %q", want)
		}
	}
}

func TestMainPingpong(t *testing.T) {
	r := mainWith(t, nil, "pingpong", "--pair", "0,1", "--channel", "port")
	if r.code != ExitOK || r.pp == nil {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	c := r.pp
	if r.plan.Command != "pingpong" || c.Pair == nil || *c.Pair != [2]int{0, 1} || c.Channels != "port" {
		t.Errorf("Command, Pair, Channels = %q, %v, %q; want pingpong, [0 1], port", r.plan.Command, c.Pair, c.Channels)
	}
	// pingpong's own defaults: 1M to 256M by 2, every pair, every channel.
	r = mainWith(t, nil, "pingpong")
	if r.code != ExitOK || r.pp == nil {
		t.Fatalf("defaults: exit code %d, stderr %q", r.code, r.stderr)
	}
	c = r.pp
	if c.MinBytes != 1<<20 || c.MaxBytes != 256<<20 || c.StepFactor != 2 || c.Pair != nil || c.Channels != "all" || c.Iters != 20 {
		t.Errorf("defaults: min %d max %d factor %d pair %v channels %q iters %d", c.MinBytes, c.MaxBytes, c.StepFactor, c.Pair, c.Channels, c.Iters)
	}
	if want := []int64{1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20, 128 << 20, 256 << 20}; !reflect.DeepEqual(c.Sizes(), want) {
		t.Errorf("defaults: Sizes() = %v, want %v", c.Sizes(), want)
	}
	for _, ch := range []string{"memory", "port", "all"} {
		if r := mainWith(t, nil, "pingpong", "--channel", ch); r.code != ExitOK || r.pp.Channels != ch {
			t.Errorf("--channel %s: exit code %d, stderr %q", ch, r.code, r.stderr)
		}
	}
}

func TestIsUsage(t *testing.T) {
	if !IsUsage(usagef("x %d", 1)) {
		t.Error("IsUsage(usagef(...)) = false")
	}
	if IsUsage(errors.New("x")) {
		t.Error("IsUsage(errors.New) = true")
	}
	wrapped := &runFailure{err: usagef("inner")}
	if !IsUsage(wrapped) {
		t.Error("IsUsage does not see a usage error through runFailure")
	}
}

func TestExtraCommandExitCodes(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"ok", nil, ExitOK},
		{"failure", Failure(errors.New("2 rows regressed")), ExitFailure},
		{"usage", Usagef("missing file"), ExitUsage},
		{"usage wrapped as failure", Failure(Usagef("bad")), ExitUsage},
		{"plain error", errors.New("plain"), ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			extra := func(app *App) *cobra.Command {
				return &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return tt.err }}
			}
			app := App{Name: "t", Stdout: &out, Stderr: &errOut, Extra: []func(*App) *cobra.Command{extra}}
			if got := Main(app, []string{"x"}); got != tt.want {
				t.Fatalf("exit %d, want %d (stderr %q)", got, tt.want, errOut.String())
			}
		})
	}
}

func TestMainAcceptanceAndProgress(t *testing.T) {
	dir := t.TempDir()
	good := dir + "/spec.yaml"
	bad := dir + "/bad.yaml"
	if err := os.WriteFile(good, []byte("min_port_put_gbs: 100\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("min_port_put: 100\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args     []string
		code     int
		spec     string
		progress string
		stderr   string
	}{
		{[]string{"acceptance"}, ExitOK, "", "auto", ""},
		{[]string{"acceptance", "--spec", good, "--progress", "off"}, ExitOK, good, "off", ""},
		{[]string{"acceptance", "--spec", dir + "/missing.yaml"}, ExitUsage, "", "", "--spec"},
		{[]string{"acceptance", "--spec", bad}, ExitUsage, "", "", "min_port_put"},
		{[]string{"allreduce", "--progress", "on"}, ExitOK, "", "on", ""},
		{[]string{"allgather", "--progress", "sometimes"}, ExitUsage, "", "", "--progress"},
	}
	for _, tt := range tests {
		r := mainWith(t, nil, tt.args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, r.code, r.stderr, tt.code, tt.stderr)
			continue
		}
		spec := ""
		if r.acc != nil {
			spec = r.acc.SpecPath
		}
		if tt.code == ExitOK && (spec != tt.spec || r.common.Progress != tt.progress || r.plan.Command != tt.args[0]) {
			t.Errorf("%v: plan %+v", tt.args, r.plan)
		}
	}
}

// TestTransportFlag: every --transport value reaches the runner (whether an HCA exists
// is the worker's to check).
func TestTransportFlag(t *testing.T) {
	for _, c := range []struct {
		flag string
		want channels.Mode
	}{
		{"auto", channels.ModeAuto}, {"nvlink", cudaipc.Mode}, {"cudaipc", cudaipc.Mode},
		{"ethernet", ethernet.Mode}, {"ib", ib.Mode},
	} {
		for _, cmd := range []string{"allreduce", "pingpong", "acceptance"} {
			r := mainWith(t, nil, cmd, "--transport", c.flag)
			if r.code != ExitOK || r.common == nil || r.common.Transport != c.want {
				t.Errorf("%s --transport %s: exit %d, %+v, stderr %q; want Transport %v", cmd, c.flag, r.code, r.plan, r.stderr, c.want)
			}
		}
	}
}

// fullWriter fails every write, as standard output redirected to /dev/full does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestStdoutWriteErrorFails: whatever subcommand writes to standard output, a failed
// write fails the command with exit 1 and one line (version used to exit 0 and completion
// 2); a runner's report written to Stdout(ctx) counts too. Usage errors stay usage errors.
func TestStdoutWriteErrorFails(t *testing.T) {
	report := func(ctx context.Context, _ *Plan) error {
		fmt.Fprintln(Stdout(ctx), "# a report line") // the error is left to Main, as a printer may
		return nil
	}
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"version"}, ExitFailure},
		{[]string{"--version"}, ExitFailure},
		{[]string{"--help"}, ExitFailure},
		{[]string{"help", "allreduce"}, ExitFailure},
		{[]string{"allgather", "--help"}, ExitFailure},
		{[]string{"completion", "bash"}, ExitFailure},
		{[]string{"allreduce", "-b", "8", "-e", "8"}, ExitFailure},
		{[]string{"allreduce", "-b", "bogus"}, ExitUsage},
	}
	for _, tt := range tests {
		var errOut bytes.Buffer
		code := Main(App{Name: "mscclpp-bench", Version: "v1", Run: report, Stdout: fullWriter{}, Stderr: &errOut}, tt.args)
		if code != tt.code {
			t.Errorf("%v > /dev/full: exit %d, stderr %q; want %d", tt.args, code, errOut.String(), tt.code)
			continue
		}
		checkOneLineError(t, tt.args, errOut.String())
		if tt.code == ExitFailure && !strings.Contains(errOut.String(), "write standard output: no space left on device") {
			t.Errorf("%v > /dev/full: stderr %q; want it to say the write failed", tt.args, errOut.String())
		}
	}
	if w := Stdout(context.Background()); w != os.Stdout {
		t.Errorf("Stdout outside Main = %v, want os.Stdout", w)
	}
}

// TestFlagValueErrorsInPlainWords: a flag value that does not parse is refused naming the
// flag and what it takes, in one line with no Go parser or type names in it.
func TestFlagValueErrorsInPlainWords(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"allreduce", "-n", "x"}, `-n/--iters "x": want a whole number`},
		{[]string{"allreduce", "-f", "1.5"}, `-f/--stepfactor "1.5": want a whole number`},
		{[]string{"allreduce", "-T", "soon"}, `-T/--timeout "soon": want a number`},
		{[]string{"allreduce", "--bootstrap-timeout", "x"}, `--bootstrap-timeout "x": want a duration such as 30s`},
		{[]string{"allreduce", "--summary=maybe"}, `--summary "maybe": want true or false`},
		{[]string{"pingpong", "-n", "99999999999999999999"}, `-n/--iters "99999999999999999999": out of range`},
		{[]string{"allreduce", "-n", strings.Repeat("9", 5000)}, `… (5000 bytes): out of range`},
	}
	for _, tt := range tests {
		r := mainWith(t, nil, tt.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%.60v: exit %d, stderr %.200q; want 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
		checkOneLineError(t, tt.args, r.stderr)
		for _, goWord := range []string{"strconv", "Parse", "int64", "float64", "time:"} {
			if strings.Contains(r.stderr, goWord) {
				t.Errorf("%.60v: stderr %.200q names Go's %q", tt.args, r.stderr, goWord)
			}
		}
	}
}

// TestMainNoArgsPrintsHelp: with no subcommand and nothing else, the help is printed and
// the exit is 0, as cobra does for a command that does not run.
func TestMainNoArgsPrintsHelp(t *testing.T) {
	r := mainWith(t, nil)
	if r.code != ExitOK || !strings.Contains(r.stdout, "Available Commands:") || r.calls != 0 {
		t.Errorf("no arguments: exit %d, stdout %.200q; want 0 and the help", r.code, r.stdout)
	}
}

// TestLongInputsShortened: an error about a 100 KB flag value, argument or variable is
// one short line that shows the input's start, an ellipsis and its length.
func TestLongInputsShortened(t *testing.T) {
	long := strings.Repeat("x", 100000)
	digits := strings.Repeat("1", 100000)
	tests := []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"an argument", nil, []string{"allreduce", long}},
		{"a datatype", nil, []string{"allreduce", "-d", "float," + long}},
		{"a size", nil, []string{"allreduce", "-b", digits}},
		{"a kernel", nil, []string{"allreduce", "-k", long}},
		{"a progress mode", nil, []string{"allreduce", "--progress", long}},
		{"a bootstrap address", nil, []string{"allreduce", "--bootstrap-addr", long}},
		{"a JSON path", nil, []string{"allreduce", "-J", "/nonexistent/" + long + ".json"}},
		{"a help topic", nil, []string{"help", long}},
		{"a completion shell", nil, []string{"completion", long}},
		{"a variable", map[string]string{"MSCCLPP_BENCH_SOCKETS": long}, []string{"allreduce"}},
		{"a timeout variable", map[string]string{"MSCCLPP_BENCH_BOOTSTRAP_TIMEOUT": long}, []string{"allreduce"}},
		{"a launcher's rank", map[string]string{"RANK": long, "WORLD_SIZE": "2"}, []string{"allreduce"}},
		{"a root port", map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "2", "SLURM_JOB_NODELIST": "a", "MSCCLPP_BENCH_ROOT_PORT": digits}, []string{"allreduce"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range launchVars {
				t.Setenv(k, "")
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			r := mainWith(t, nil, tt.args...)
			if r.code != ExitUsage || len(r.stderr) > 500 || !strings.Contains(r.stderr, " bytes)") {
				t.Errorf("exit %d, a %d-byte message %.300q; want 2 and the input shortened", r.code, len(r.stderr), r.stderr)
			}
			checkOneLineError(t, tt.args, r.stderr)
		})
	}
}
