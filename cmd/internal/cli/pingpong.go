package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// PingPongOptions are pingpong's options, validated.
type PingPongOptions struct {
	Common
	// Pair is the one pair of ranks to measure (--pair i,j), or nil for every pair.
	Pair     *[2]int
	Channels string // "memory", "port" or "all"
}

// pingpongFlags are pingpong's flags: the common ones, a pair and the channels.
type pingpongFlags struct {
	commonFlags
	pair, channels string
}

func pingpongCommand(app *App) *cobra.Command {
	r := &pingpongFlags{}
	cmd := &cobra.Command{
		Use:   "pingpong",
		Short: "Point-to-point latency and bandwidth between pairs of ranks over memory and port channels",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := r.build()
			if err != nil {
				return err
			}
			return run(app, cmd, &Plan{Command: "pingpong", PingPong: o})
		},
	}
	fs := cmd.Flags()
	r.add(fs, "1M", "256M", 2)
	fs.StringVar(&r.pair, "pair", "", "only the pair i,j (default: every pair)")
	fs.StringVar(&r.channels, "channel", "all", "channels to measure: memory, port or all (all: port only where a pair is not connected by CUDA IPC)")
	return cmd
}

// build validates the flags into pingpong's options.
func (r *pingpongFlags) build() (*PingPongOptions, error) {
	common, err := r.commonFlags.build()
	if err != nil {
		return nil, err
	}
	c := &PingPongOptions{Common: common, Channels: r.channels}
	if r.pair != "" {
		i, j, err := ParsePair(r.pair)
		if err != nil {
			return nil, usagef("--pair: %v", err)
		}
		c.Pair = &[2]int{i, j}
	}
	switch c.Channels {
	case "memory", "port", "all":
	default:
		return nil, usagef("--channel %q: want memory, port or all", c.Channels)
	}
	return c, nil
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
