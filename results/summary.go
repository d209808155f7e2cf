package results

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// defaultAlgorithm labels rows whose Algorithm is empty in the summary.
const defaultAlgorithm = "default"

// summaryKey identifies one line of the best-algorithm summary.
type summaryKey struct {
	size    int64
	typ, op string
}

// candidate is one algorithm's measurement for a summaryKey.
type candidate struct {
	algorithm string
	timeUs    float64
	busBw     float64
}

// bestPlacement returns the placement the summary ranks a row by: the
// out-of-place one, or the in-place one when out-of-place is missing.
func bestPlacement(r Row) *Placement {
	if r.OutOfPlace != nil {
		return r.OutOfPlace
	}
	return r.InPlace
}

// WriteBestSummary writes an ASCII table with one line per (size, type, op)
// found in rows, in order of first appearance. Each line names the
// algorithm with the lowest out-of-place time (in-place time for rows
// without out-of-place results; rows with neither are skipped), its time
// and bus bandwidth, the runner-up algorithm and how much slower the
// runner-up is, in percent. With a single algorithm the runner-up columns
// show "-". Rows with an empty Algorithm are labelled "default"; when an
// algorithm appears several times for the same key its fastest entry counts.
//
// The table lines do not start with '#'; wrap w with NewCommentWriter when
// the summary goes into a stream read by nccl-tests parsers.
func WriteBestSummary(w io.Writer, rows []Row) error {
	var order []summaryKey
	groups := map[summaryKey][]candidate{}
	for _, r := range rows {
		pl := bestPlacement(r)
		if pl == nil {
			continue
		}
		k := summaryKey{r.Size, r.Type, r.Op}
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		alg := r.Algorithm
		if alg == "" {
			alg = defaultAlgorithm
		}
		groups[k] = addCandidate(groups[k], candidate{alg, pl.TimeUs, pl.BusBw})
	}

	// tablewriter ignores write errors, so render into memory first.
	var buf bytes.Buffer
	table := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{
			Global: tw.AlignRight,
			PerColumn: []tw.Align{
				tw.AlignRight, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft,
				tw.AlignRight, tw.AlignRight, tw.AlignLeft, tw.AlignRight,
			},
		}),
	)
	table.Header("size (B)", "type", "redop", "best", "time (us)", "busbw (GB/s)", "runner-up", "slower (%)")
	for _, k := range order {
		best, second := topTwo(groups[k])
		line := []string{
			strconv.FormatInt(k.size, 10), k.typ, k.op, best.algorithm,
			strconv.FormatFloat(best.timeUs, 'f', 2, 64),
			strconv.FormatFloat(best.busBw, 'f', 2, 64),
			"-", "-",
		}
		if second != nil {
			line[6] = second.algorithm
			line[7] = slowerPercent(best.timeUs, second.timeUs)
		}
		if err := table.Append(line); err != nil {
			return fmt.Errorf("results: best summary: add size %d: %w", k.size, err)
		}
	}
	if err := table.Render(); err != nil {
		return fmt.Errorf("results: best summary: render: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("results: best summary: write: %w", err)
	}
	return nil
}

// addCandidate adds c to cs, keeping only the fastest entry per algorithm.
func addCandidate(cs []candidate, c candidate) []candidate {
	for i := range cs {
		if cs[i].algorithm == c.algorithm {
			if c.timeUs < cs[i].timeUs {
				cs[i] = c
			}
			return cs
		}
	}
	return append(cs, c)
}

// topTwo returns the fastest candidate and the runner-up (nil when there is
// only one). Ties keep the earlier candidate first.
func topTwo(cs []candidate) (best candidate, second *candidate) {
	best = cs[0]
	for _, c := range cs[1:] {
		switch {
		case c.timeUs < best.timeUs:
			prev := best
			best, second = c, &prev
		case second == nil || c.timeUs < second.timeUs:
			c := c
			second = &c
		}
	}
	return best, second
}

// slowerPercent says how much slower t is than best, e.g. "12.5".
func slowerPercent(best, t float64) string {
	if best <= 0 {
		return "-"
	}
	return strconv.FormatFloat((t-best)/best*100, 'f', 1, 64)
}
