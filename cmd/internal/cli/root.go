package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/clip"
)

// Runner runs a GPU subcommand's Plan.
type Runner func(ctx context.Context, plan *Plan) error

// App wires the command tree to its environment.
type App struct {
	Name    string // program name in messages
	Version string // version string for `version` and reports
	Run     Runner // runs the collectives, pingpong and acceptance
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
	// Every write to standard output goes through out, which keeps the first error: a
	// report, table or version that did not reach its reader (a full disk, a closed
	// pipe) fails the command whichever subcommand wrote it, not only those that check.
	out := &stdoutWriter{w: app.Stdout}
	app.Stdout = out
	root := NewRoot(&app)
	root.SetArgs(args)
	err := root.ExecuteContext(context.WithValue(context.Background(), stdoutKey{}, io.Writer(out)))
	return exitCode(app, out, err)
}

// exitCode prints err as one line on app.Stderr and returns the exit code for it: a
// failed write to out (standard output) is a failed run unless err is bad usage.
func exitCode(app App, out *stdoutWriter, err error) int {
	if out.err != nil && (err == nil || !IsUsage(err)) {
		// The write failed; whatever the command made of that (cobra's completion returns
		// the error as it is), it is a failed run, not bad usage.
		err = &runFailure{fmt.Errorf("write standard output: %w", out.err)}
	}
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

// flagError is a flag parse error as a usage error. A value that does not parse is named
// with its flag and what the flag takes, not with the Go parser's words (pflag's own
// message reads "strconv.ParseInt: parsing ...").
func flagError(err error) error {
	var bad *pflag.InvalidValueError
	if !errors.As(err, &bad) {
		return usagef("%v", err)
	}
	f := bad.GetFlag()
	name := "--" + f.Name
	if f.Shorthand != "" {
		name = "-" + f.Shorthand + "/" + name
	}
	var num *strconv.NumError
	if errors.As(bad, &num) && errors.Is(num.Err, strconv.ErrRange) {
		return usagef("%s %s: out of range", name, clip.Quote(bad.GetValue()))
	}
	want := map[string]string{
		"int": "a whole number", "int64": "a whole number", "int32": "a whole number",
		"uint": "a whole number, 0 or more", "uint64": "a whole number, 0 or more",
		"float64": "a number", "float32": "a number", "bool": "true or false",
		"duration": "a duration such as 30s, 1m or 500ms",
	}[f.Value.Type()]
	if want == "" {
		return usagef("%s %s: %v", name, clip.Quote(bad.GetValue()), errors.Unwrap(bad))
	}
	return usagef("%s %s: want %s", name, clip.Quote(bad.GetValue()), want)
}

// unknownSubcommand is the usage error for a first word that is no subcommand of root.
func unknownSubcommand(root *cobra.Command, word string) error {
	hint := ""
	if s := root.SuggestionsFor(word); len(s) > 0 {
		hint = fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
	}
	return usagef("unknown subcommand %s%s; the subcommands are %s", clip.Quote(word), hint, subcommandList(root))
}

// subcommandList lists root's subcommands, help's and completion's included.
func subcommandList(root *cobra.Command) string {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			names = append(names, c.Name())
		}
	}
	return strings.Join(names, ", ")
}

// stdoutWriter passes writes on to w and keeps the first error.
type stdoutWriter struct {
	w   io.Writer
	err error
}

func (s *stdoutWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

type stdoutKey struct{}

// Stdout is the standard output of the command running with ctx: what a runner must
// write its report to, so that a failed write fails the command (exit 1). Outside Main it
// is os.Stdout.
func Stdout(ctx context.Context) io.Writer {
	if ctx != nil {
		if w, ok := ctx.Value(stdoutKey{}).(io.Writer); ok {
			return w
		}
	}
	return os.Stdout
}

// oneLine is an error message as Main prints it: on one line, with any long input it
// echoes shortened (clip.Message), so that a 100 KB flag or variable is not printed back.
func oneLine(s string) string { return clip.Message(strings.Join(strings.Fields(s), " ")) }

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
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		var unknown *pflag.NotExistError
		if cmd == root && len(cmd.Flags().Args()) > 0 {
			return unknownSubcommand(root, cmd.Flags().Args()[0]) // "all_reduce -b 8"
		}
		if cmd == root && errors.As(err, &unknown) {
			// A flag before any subcommand: most likely the subcommand was forgotten.
			return usagef("%v: flags go after a subcommand (%s SUBCOMMAND [flags]); the subcommands are %s",
				err, root.Name(), subcommandList(root))
		}
		return flagError(err)
	})
	// A word that is no subcommand: say which exist (cobra's own message only suggests a
	// close name, when it finds one). Runnable, root parses its arguments itself; with
	// none it prints its help, as before.
	root.Args = cobra.ArbitraryArgs
	root.SuggestionsMinimumDistance = 2 // cobra's default, which it sets only on its own path
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		return unknownSubcommand(root, args[0])
	}
	// One command per registered collective (collective.go), then the others, each built
	// in its own file with its own flags.
	for _, c := range collectives.Collectives() {
		root.AddCommand(collectiveCommand(app, c))
	}
	root.AddCommand(pingpongCommand(app), acceptanceCommand(app), versionCommand(app))
	for _, extra := range app.Extra {
		root.AddCommand(extra(app))
	}
	refuseUnknownTopics(root)
	return root
}

func versionCommand(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(app.Stdout, "%s %s\n", app.Name, app.Version)
			return nil
		},
	}
}

// run hands a subcommand's plan to the App's runner.
func run(app *App, cmd *cobra.Command, plan *Plan) error {
	if app.Run == nil {
		return &runFailure{fmt.Errorf("%s needs a GPU runner, and none is built in", plan.Command)}
	}
	plan.Version = PlanVersion
	plan.Args = commandLine(app.Name)
	if err := app.Run(cmd.Context(), plan); err != nil {
		return &runFailure{err}
	}
	return nil
}
