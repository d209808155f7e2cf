package compare

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/mscclpp-bench/mscclpp-bench/internal/clip"
)

// WriteTable writes res as ASCII tables: one of the collective rows
// (collective, algorithm, type, op, placement, size, metric, baseline,
// current, change, verdict), one of the ping-pong rows when there are any,
// then a "warning:" line per Result.Warnings entry, a "note:" line per row
// with a Row.Note, and the Result.Summary line.
func WriteTable(w io.Writer, res *Result) error {
	if res == nil {
		return fmt.Errorf("compare: write table: nil result")
	}
	// tablewriter ignores write errors, so render into memory first.
	var buf bytes.Buffer
	var coll, ping [][]string
	for i := range res.Rows {
		r := &res.Rows[i]
		cells := []string{
			strconv.FormatInt(r.Size, 10), r.Metric + " (" + r.Unit + ")",
			formatValue(r.Baseline), formatValue(r.Current), FormatChange(r.Change), string(r.Verdict),
		}
		// The names come from the files: escape sequences in them must not reach the
		// terminal, nor newlines break the table.
		if r.PingPong {
			ping = append(ping, append(printable(r.Pair, r.Channel, r.Mode), cells...))
		} else {
			coll = append(coll, append(printable(r.Collective, algorithmShown(*r), r.Type, r.Op, r.Placement), cells...))
		}
	}
	if len(coll) > 0 || len(ping) == 0 {
		header := []string{"collective", "algorithm", "type", "redop", "placement",
			"size (B)", "metric", "baseline", "current", "change", "verdict"}
		if err := renderTable(&buf, header, 5, coll); err != nil {
			return err
		}
	}
	if len(ping) > 0 {
		header := []string{"pair", "channel", "mode", "size (B)", "metric", "baseline", "current", "change", "verdict"}
		if err := renderTable(&buf, header, 3, ping); err != nil {
			return err
		}
	}
	for _, warn := range res.Warnings {
		fmt.Fprintf(&buf, "warning: %s\n", clip.Printable(warn))
	}
	for i := range res.Rows {
		if r := &res.Rows[i]; r.Note != "" {
			fmt.Fprintf(&buf, "note: %s: %s\n", clip.Printable(r.Name()), clip.Printable(r.Note))
		}
	}
	fmt.Fprintln(&buf, res.Summary())
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("compare: write table: %w", err)
	}
	return nil
}

// printable returns the strings with clip.Printable applied to each.
func printable(s ...string) []string {
	for i := range s {
		s[i] = clip.Printable(s[i])
	}
	return s
}

// renderTable renders one table into buf. The first nText columns are
// left-aligned names; then come size, metric (left), three numbers and the
// verdict (left).
func renderTable(buf *bytes.Buffer, header []string, nText int, lines [][]string) error {
	align := make([]tw.Align, 0, len(header))
	for range nText {
		align = append(align, tw.AlignLeft)
	}
	align = append(align, tw.AlignRight, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignLeft)
	table := tablewriter.NewTable(buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{Global: tw.AlignRight, PerColumn: align}),
	)
	table.Header(header)
	for _, line := range lines {
		if err := table.Append(line); err != nil {
			return fmt.Errorf("compare: write table: add row: %w", err)
		}
	}
	if err := table.Render(); err != nil {
		return fmt.Errorf("compare: write table: render: %w", err)
	}
	return nil
}

// FormatChange formats a relative change as a signed percentage with one
// decimal, e.g. "+12.3%" or "-4.0%", or with three significant digits from a
// million percent up ("+1e+308%"); NaN (no change computed) is "n/a".
func FormatChange(change float64) string {
	pct := change * 100
	switch {
	case math.IsNaN(change):
		return "n/a"
	case math.Abs(pct) >= 1e6:
		return fmt.Sprintf("%+.3g%%", pct)
	}
	return fmt.Sprintf("%+.1f%%", pct)
}

// formatValue formats a measured value: two decimals from 1 up, three
// significant digits below, and four significant digits from a billion up
// (so that an absurd figure such as 1e308 does not widen the table); NaN
// (absent) is "-".
func formatValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.Abs(v) >= 1e9:
		return strconv.FormatFloat(v, 'g', 4, 64)
	case math.Abs(v) >= 1 || v == 0:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

// algorithmShown names a row's algorithm, as "baseline→current" when a named baseline
// algorithm differs (rows matched with AnyAlgorithm).
func algorithmShown(r Row) string {
	if r.BaselineAlgorithm != "" && r.BaselineAlgorithm != r.Algorithm {
		return algorithmLabel(r.BaselineAlgorithm) + "→" + algorithmLabel(r.Algorithm)
	}
	return algorithmLabel(r.Algorithm)
}
