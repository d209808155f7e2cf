package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

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
			cfg, err := r.build()
			if err != nil {
				return err
			}
			return run(app, cmd, cfg)
		},
	}
	fs := cmd.Flags()
	r.add(fs, "1M", "256M", 2)
	fs.StringVar(&r.pair, "pair", "", "only the pair i,j (default: every pair)")
	fs.StringVar(&r.channels, "channel", "all", "channels to measure: memory, port or all")
	return cmd
}

// build validates the flags into a Config.
func (r *pingpongFlags) build() (*Config, error) {
	c, err := r.commonFlags.build("pingpong")
	if err != nil {
		return nil, err
	}
	c.Pair, c.Channels = r.pair, r.channels
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
