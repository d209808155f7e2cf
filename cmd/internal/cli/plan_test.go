package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ib"
)

// TestPlanFromFlags: each subcommand's command line becomes one typed plan: -k resolved
// (a number to its algorithm's name), --transport a mode, --pair two ranks; the plan
// carries only its own subcommand's options, and comes back equal through the worker's
// decoder.
func TestPlanFromFlags(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte("min_port_put_gbs: 100\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args  []string
		check func(p *Plan) error
	}{
		{[]string{"allreduce", "-k", "3", "--transport", "cudaipc", "-b", "1K", "-e", "4K", "-f", "2", "-d", "fp16,float"}, func(p *Plan) error {
			c := p.Collective
			if c == nil || p.PingPong != nil || p.Acceptance != nil {
				return errors.New("want only collective options")
			}
			if want := (Selection{Mode: SelectOne, Algorithm: "rsag", Given: "3"}); c.Kernel != want {
				return errors.New("kernel " + c.Kernel.Key() + ", want rsag")
			}
			if c.Transport != cudaipc.Mode || c.Collective != "allreduce" || !reflect.DeepEqual(c.Sizes(), []int64{1024, 2048, 4096}) ||
				!reflect.DeepEqual(c.Datatypes, []string{"half", "float"}) {
				return errors.New("transport, collective, sizes or types not as given")
			}
			return nil
		}},
		{[]string{"allgather", "-k", "all"}, func(p *Plan) error {
			if p.Collective == nil || p.Collective.Kernel != (Selection{Mode: SelectAll, Given: "all"}) || p.Collective.Kernel.Key() != "all" {
				return errors.New("want -k all")
			}
			return nil
		}},
		{[]string{"sendrecv"}, func(p *Plan) error {
			if p.Collective == nil || p.Collective.Kernel.Key() != "auto" || p.Collective.Transport != channels.ModeAuto {
				return errors.New("want -k auto and --transport auto by default")
			}
			return nil
		}},
		{[]string{"pingpong", "--pair", "1,0", "--channel", "memory", "--transport", "ethernet"}, func(p *Plan) error {
			c := p.PingPong
			if c == nil || p.Collective != nil || c.Pair == nil || *c.Pair != [2]int{1, 0} || c.Channels != "memory" || c.Transport != ethernet.Mode {
				return errors.New("want pair 1,0, memory channels, Ethernet")
			}
			return nil
		}},
		{[]string{"acceptance", "--spec", spec, "--transport", "ib"}, func(p *Plan) error {
			c := p.Acceptance
			if c == nil || c.SpecPath != spec || c.Transport != ib.Mode {
				return errors.New("want the spec and IB")
			}
			return nil
		}},
	}
	for _, tt := range tests {
		r := mainWith(t, nil, tt.args...)
		if r.code != ExitOK || r.plan == nil {
			t.Errorf("%v: exit %d, stderr %q", tt.args, r.code, r.stderr)
			continue
		}
		if r.plan.Version != PlanVersion || r.plan.Command != tt.args[0] || len(r.plan.Args) == 0 {
			t.Errorf("%v: version %d, command %q, args %v", tt.args, r.plan.Version, r.plan.Command, r.plan.Args)
		}
		if err := tt.check(r.plan); err != nil {
			t.Errorf("%v: %v: %+v", tt.args, err, r.plan)
		}
		enc, err := EncodePlan(r.plan)
		if err != nil {
			t.Errorf("%v: encode: %v", tt.args, err)
			continue
		}
		back, err := DecodePlan(enc)
		if err != nil {
			t.Errorf("%v: decode: %v", tt.args, err)
			continue
		}
		if !reflect.DeepEqual(back, r.plan) {
			t.Errorf("%v: round trip\n got %+v\nwant %+v", tt.args, back, r.plan)
		}
	}
}

// TestDecodePlanRefuses: text that is no plan of this build is refused, naming why.
func TestDecodePlanRefuses(t *testing.T) {
	r := mainWith(t, nil, "allreduce")
	if r.plan == nil {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	good, err := EncodePlan(r.plan)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text, want string
	}{
		{"not JSON", "allreduce -b 8", "decode the plan"},
		{"another version", strings.Replace(good, `"Version":1`, `"Version":99`, 1), "plan version 99"},
		{"unknown field", strings.Replace(good, `"Version":1`, `"Version":1,"Extra":2`, 1), "unknown field"},
		{"text after it", good + " {}", "text after the plan"},
		{"no options", `{"Version":1,"Command":"allreduce"}`, "0 sets of options"},
		{"options of another command", strings.Replace(good, `"Command":"allreduce"`, `"Command":"allgather"`, 1), `carries the options of "allreduce"`},
		{"pingpong's command, a collective's options", `{"Version":1,"Command":"pingpong","Collective":{"Collective":"pingpong"}}`, "plan:"},
	}
	for _, tt := range tests {
		if _, err := DecodePlan(tt.text); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tt.name, err, tt.want)
		}
	}
}

// TestRunPlanExitCodes: the worker's side of Main prints one line and exits as Main does:
// 0, 1 for a failed run or a plan it cannot read, 2 for bad usage found by the run.
func TestRunPlanExitCodes(t *testing.T) {
	r := mainWith(t, nil, "pingpong")
	good, err := EncodePlan(r.plan)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		plan     string
		runErr   error
		code     int
		stderr   string
		noRunner bool
	}{
		{"ran", good, nil, ExitOK, "", false},
		{"failed", good, errors.New("pair 0-1: timed out"), ExitFailure, "mscclpp-bench: pair 0-1: timed out\n", false},
		{"usage found by the run", good, Usagef("--kernel 3: needs one host"), ExitUsage, "mscclpp-bench: --kernel 3: needs one host\n", false},
		{"bad plan", "{", nil, ExitFailure, "mscclpp-bench: decode the plan", false},
		{"no runner", good, nil, ExitFailure, "mscclpp-bench: pingpong needs a GPU runner", true},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		calls := 0
		app := App{Name: "mscclpp-bench", Stdout: &out, Stderr: &errOut, Run: func(_ context.Context, p *Plan) error {
			calls++
			if p.PingPong == nil {
				t.Errorf("%s: runner got %+v", tt.name, p)
			}
			return tt.runErr
		}}
		if tt.noRunner {
			app.Run = nil
		}
		code := RunPlan(app, tt.plan)
		if code != tt.code || !strings.HasPrefix(errOut.String(), tt.stderr) || strings.Count(errOut.String(), "\n") > 1 {
			t.Errorf("%s: exit %d, stderr %q; want %d and one line %q", tt.name, code, errOut.String(), tt.code, tt.stderr)
		}
	}
}

// TestWorkerMainTakesThePlan: exec'd by the front end (its mark names this pid), the
// worker runs the plan and does not read its command line (here junk that would not parse);
// a plan without the mark, or with another process's, is not trusted: the command line is
// parsed instead. Neither variable is left for the processes the worker starts.
func TestWorkerMainTakesThePlan(t *testing.T) {
	r := mainWith(t, nil, "allgather", "-n", "9")
	enc, err := EncodePlan(r.plan)
	if err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(os.Getpid())
	tests := []struct {
		name, mark string
		argv       []string
		code       int
		command    string // what the runner got; "" not called
		iters      int
	}{
		{"front end's plan", pid + ":/bin/worker", []string{"mscclpp-bench-gpu", "no-such-subcommand", "-b", "x"}, ExitOK, "allgather", 9},
		{"another process's mark", "1:/bin/worker", []string{"mscclpp-bench-gpu", "allreduce", "-n", "4"}, ExitOK, "allreduce", 4},
		{"no mark", "", []string{"mscclpp-bench-gpu", "no-such-subcommand"}, ExitUsage, "", 0},
	}
	for _, tt := range tests {
		t.Setenv(PlanEnv, enc)
		t.Setenv(FrontEndExecEnv, tt.mark)
		var got *Plan
		var out, errOut bytes.Buffer
		code := WorkerMain(App{Name: "mscclpp-bench", Stdout: &out, Stderr: &errOut,
			Run: func(_ context.Context, p *Plan) error { got = p; return nil }}, tt.argv)
		if code != tt.code {
			t.Errorf("%s: exit %d, stderr %q; want %d", tt.name, code, errOut.String(), tt.code)
		}
		switch {
		case tt.command == "" && got != nil:
			t.Errorf("%s: the runner ran %q", tt.name, got.Command)
		case tt.command != "" && (got == nil || got.Command != tt.command || got.Common().Iters != tt.iters):
			t.Errorf("%s: runner got %+v; want %s with -n %d", tt.name, got, tt.command, tt.iters)
		}
		if v, ok := os.LookupEnv(PlanEnv); ok {
			t.Errorf("%s: %s left set (%d bytes)", tt.name, PlanEnv, len(v))
		}
		if _, ok := os.LookupEnv(FrontEndExecEnv); ok {
			t.Errorf("%s: %s left set", tt.name, FrontEndExecEnv)
		}
	}
}

// TestPlanBadInputOneLine: bad -k, --transport and --pair values are refused by the front
// end with one line and exit 2, before any plan reaches a runner.
func TestPlanBadInputOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"allreduce", "-k", "nosuch"},
		{"allreduce", "-k", "12345"},
		{"allgather", "--transport", "carrier-pigeon"},
		{"pingpong", "--pair", "1,1"},
		{"pingpong", "--transport", ""},
	} {
		r := mainWith(t, nil, args...)
		if r.code != ExitUsage || r.calls != 0 {
			t.Errorf("%v: exit %d, runner called %d times; want exit 2 and no run", args, r.code, r.calls)
		}
		checkOneLineError(t, args, r.stderr)
	}
}
