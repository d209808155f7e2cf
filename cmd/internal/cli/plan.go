package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
)

// PlanVersion is the version of the Plan's encoding: a worker refuses a plan of another
// version (a front end and a worker built from different trees).
const PlanVersion = 1

// PlanEnv is the environment variable through which the front end hands the GPU worker
// the plan it execs it with (EncodePlan's text).
const PlanEnv = "MSCCLPP_BENCH_PLAN"

// maxPlanBytes keeps an encoded plan below Linux's limit on one environment string
// (MAX_ARG_STRLEN, 128 KiB).
const maxPlanBytes = 120 << 10

// Plan is a GPU subcommand's command line resolved once, by the front end: the subcommand
// and exactly one of its options. The worker runs it as it is; what depends on the job's
// layout (the automatic algorithm of each size) is decided there from it.
type Plan struct {
	Version int      // PlanVersion
	Command string   // the subcommand: a collective's name, "pingpong" or "acceptance"
	Args    []string // the command line, for reports

	Collective *CollectiveOptions `json:",omitempty"`
	PingPong   *PingPongOptions   `json:",omitempty"`
	Acceptance *AcceptanceOptions `json:",omitempty"`
}

// Common returns the options every subcommand has, of whichever subcommand p is (nil for
// a plan with none).
func (p *Plan) Common() *Common {
	switch {
	case p.Collective != nil:
		return &p.Collective.Common
	case p.PingPong != nil:
		return &p.PingPong.Common
	case p.Acceptance != nil:
		return &p.Acceptance.Common
	}
	return nil
}

// check says whether p is a plan this build runs: its version, and one set of options
// that matches its command.
func (p *Plan) check() error {
	if p.Version != PlanVersion {
		return fmt.Errorf("plan version %d, and this GPU worker runs version %d: build mscclpp-bench and mscclpp-bench-gpu from one tree (make)", p.Version, PlanVersion)
	}
	n := 0
	for _, set := range []bool{p.Collective != nil, p.PingPong != nil, p.Acceptance != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("plan for %q has %d sets of options, want 1", p.Command, n)
	}
	switch {
	case p.PingPong != nil && p.Command != "pingpong", p.Acceptance != nil && p.Command != "acceptance":
		return fmt.Errorf("plan for %q carries another subcommand's options", p.Command)
	case p.Collective != nil:
		if p.Collective.Collective != p.Command {
			return fmt.Errorf("plan for %q carries the options of %q", p.Command, p.Collective.Collective)
		}
		if _, err := collectives.Lookup(p.Command); err != nil {
			return fmt.Errorf("plan: %w", err)
		}
	}
	return nil
}

// EncodePlan returns p as the text PlanEnv carries.
func EncodePlan(p *Plan) (string, error) {
	if err := p.check(); err != nil {
		return "", err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("encode the %s plan: %w", p.Command, err)
	}
	if len(b) > maxPlanBytes {
		return "", fmt.Errorf("the %s plan is %d bytes, more than the %d an environment variable carries", p.Command, len(b), maxPlanBytes)
	}
	return string(b), nil
}

// DecodePlan reads EncodePlan's text back, refusing unknown fields, another version and
// options that do not match the command.
func DecodePlan(s string) (*Plan, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	p := &Plan{}
	if err := dec.Decode(p); err != nil {
		return nil, fmt.Errorf("decode the plan from %s: %w", PlanEnv, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("decode the plan from %s: text after the plan", PlanEnv)
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	return p, nil
}

// planFromEnv returns the encoded plan when the front end of this very process (pid, which
// exec keeps) set it before it exec'd the worker: its mark (FrontEndExecEnv, "pid:path")
// names pid. A plan left in the environment by another process is not this one's.
func planFromEnv(getenv func(string) string, pid int) (string, bool) {
	p, _, ok := strings.Cut(getenv(FrontEndExecEnv), ":")
	if !ok {
		return "", false
	}
	n, err := strconv.Atoi(p)
	enc := getenv(PlanEnv)
	return enc, err == nil && n == pid && enc != ""
}

// WorkerMain is the GPU worker's main: exec'd by the front end, it runs the plan the
// front end resolved (RunPlan) and does not read its command line; launched directly (mpirun
// mscclpp-bench-gpu allreduce ...), it parses the command line itself, once, as the front
// end would (MainArgv). Either way the front end's variables do not reach the processes
// the worker starts. It returns the exit code.
func WorkerMain(app App, argv []string) int {
	enc, planned := planFromEnv(os.Getenv, os.Getpid())
	os.Unsetenv(PlanEnv)
	os.Unsetenv(FrontEndExecEnv)
	if !planned {
		return MainArgv(app, argv)
	}
	return RunPlan(app, enc)
}

// RunPlan decodes an encoded plan and runs it with app.Run, printing an error as one line
// as Main does, with the same exit codes: 1 for a failed run (or a plan this build cannot
// read), 2 for bad usage found only now (an algorithm that does not fit the job's layout).
func RunPlan(app App, encoded string) int {
	if app.Stdout == nil {
		app.Stdout = os.Stdout
	}
	if app.Stderr == nil {
		app.Stderr = os.Stderr
	}
	out := &stdoutWriter{w: app.Stdout}
	app.Stdout = out
	plan, err := DecodePlan(encoded)
	switch {
	case err != nil:
		err = &runFailure{err}
	case app.Run == nil:
		err = &runFailure{fmt.Errorf("%s needs a GPU runner, and none is built in", plan.Command)}
	default:
		ctx := context.WithValue(context.Background(), stdoutKey{}, io.Writer(out))
		if err = app.Run(ctx, plan); err != nil {
			err = &runFailure{err}
		}
	}
	return exitCode(app, out, err)
}
