package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot/vg"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/internal/safefile"
	"github.com/mscclpp-bench/mscclpp-bench/plot"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

func init() { extraCommands = append(extraCommands, newPlotCommand) }

// plotFlags holds the plot subcommand's flag values.
type plotFlags struct {
	output, labels, placement string
	datatype, op, title       string
	width, height             string
	dpi                       int
	byAlgorithm               bool
}

// newPlotCommand builds `plot RESULTS.json... -o FILE.svg|.png`.
func newPlotCommand(app *cli.App) *cobra.Command {
	f := &plotFlags{}
	cmd := &cobra.Command{
		Use:   "plot RESULTS.json [MORE.json...] -o FILE.svg|FILE.png",
		Short: "Draw bus bandwidth and time against message size from results files",
		Long: "plot draws one picture of two panels, bus bandwidth and time against message size, with one\n" +
			"line per results file (ours or nccl-tests' -J JSON). A file measuring several algorithms per\n" +
			"size is drawn as its best algorithm per size, or one line per algorithm with --by-algorithm.\n" +
			"The output format follows the -o extension: .svg or .png.",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlot(app, f, args)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&f.output, "output", "o", "", "picture to write: FILE.svg or FILE.png (required; not one of the inputs)")
	fs.StringVar(&f.labels, "label", "", "legend labels, comma-separated, one per file (empty: file name without .json)")
	fs.StringVar(&f.placement, "placement", "out", "measurement to draw: out (out-of-place) or in (in-place)")
	fs.StringVarP(&f.datatype, "datatype", "d", "", "draw rows of this type only (default: each file's first type)")
	fs.StringVar(&f.op, "op", "", "draw rows of this reduction only (default: each file's first op)")
	fs.BoolVar(&f.byAlgorithm, "by-algorithm", false, "one line per algorithm instead of the best algorithm per size")
	fs.StringVar(&f.title, "title", "", "picture title (default: collective, type, op and placement)")
	fs.StringVar(&f.width, "width", "10in", "picture width: a number with unit in, cm, mm or pt; a bare number is points (72 per inch)")
	fs.StringVar(&f.height, "height", "4in", "picture height: a number with unit in, cm, mm or pt; a bare number is points (72 per inch)")
	fs.IntVar(&f.dpi, "dpi", plot.DefaultDPI, "PNG resolution in dots per inch (24 to 1200)")
	return cmd
}

// runPlot checks the flags, reads the files and writes the picture.
func runPlot(app *cli.App, f *plotFlags, args []string) error {
	if len(args) == 0 {
		return cli.Usagef("plot: give at least one results .json file")
	}
	if f.output == "" {
		return cli.Usagef("plot: -o FILE.svg or FILE.png is required")
	}
	opt := plot.Options{Datatype: f.datatype, Op: f.op, ByAlgorithm: f.byAlgorithm, Title: f.title, DPI: f.dpi}
	var err error
	if opt.Format, err = plot.FormatFromPath(f.output); err != nil {
		return cli.Usagef("plot: -o %v", err)
	}
	if opt.Placement, err = plot.ParsePlacement(f.placement); err != nil {
		return cli.Usagef("plot: --%v", err)
	}
	if opt.Width, err = parsePlotLength("width", f.width); err != nil {
		return err
	}
	if opt.Height, err = parsePlotLength("height", f.height); err != nil {
		return err
	}
	if f.dpi <= 0 {
		return cli.Usagef("plot: --dpi %d: want dots per inch from 24 to 1200", f.dpi)
	}
	if err := safefile.CheckOutput(f.output, args...); err != nil {
		return cli.Usagef("plot: -o: %v", err)
	}
	var labels []string
	if f.labels != "" {
		labels = strings.Split(f.labels, ",")
		if len(labels) != len(args) {
			return cli.Usagef("plot: --label has %d labels for %d files", len(labels), len(args))
		}
	}

	inputs := make([]plot.Input, len(args))
	for i, name := range args {
		r, err := readPlotInput(name)
		if err != nil {
			return cli.Usagef("plot: %v", err)
		}
		inputs[i] = plot.Input{Name: name, Report: r}
		if labels != nil {
			inputs[i].Label = strings.TrimSpace(labels[i])
		}
	}
	fig, err := plot.New(inputs, opt)
	if err != nil {
		return cli.Usagef("plot: %v", err)
	}

	var buf bytes.Buffer
	if err := fig.Write(&buf); err != nil {
		return cli.Failure(err)
	}
	if err := safefile.Write(f.output, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return cli.Usagef("plot: -o: %v", err)
	}
	fmt.Fprintf(app.Stdout, "wrote %s\n", f.output)
	return nil
}

// readPlotInput reads one results file; its errors name the file.
func readPlotInput(name string) (*results.Report, error) {
	fh, err := safefile.Open(name)
	if err != nil {
		return nil, err // *PathError names the file
	}
	defer fh.Close()
	r, err := results.ReadJSON(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

// parsePlotLength reads a --width or --height value such as "10in" or "25cm"; a bare
// number is points. It must be finite and positive (plot.New checks the range).
func parsePlotLength(flag, s string) (vg.Length, error) {
	l, err := vg.ParseLength(strings.TrimSpace(s))
	if err != nil || math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) || l <= 0 {
		return 0, cli.Usagef("plot: --%s %q: want a positive length such as 10in, 25cm, 250mm or 720pt (a bare number is points)", flag, s)
	}
	return l, nil
}
