package main

import (
	"bytes"

	"github.com/spf13/cobra"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
)

// runExtra runs the command line with only the given GPU-free subcommand added and returns
// the exit code, stdout and stderr.
func runExtra(cmd func(*cli.App) *cobra.Command, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	app := cli.App{
		Name: "mscclpp-bench", Version: "test", Stdout: &out, Stderr: &errOut,
		Extra: []func(*cli.App) *cobra.Command{cmd},
	}
	code := cli.Main(app, args)
	return code, out.String(), errOut.String()
}
