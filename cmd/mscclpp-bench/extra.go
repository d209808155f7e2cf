package main

import (
	"github.com/spf13/cobra"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
)

// extraCommands are the GPU-free subcommands this binary runs itself.
var extraCommands []func(app *cli.App) *cobra.Command
