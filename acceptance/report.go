package acceptance

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Report is everything an acceptance run writes as JSON.
type Report struct {
	Spec    Spec    `json:"spec"`
	Figures Figures `json:"figures"`
	Checks  []Check `json:"checks"`
	Pass    bool    `json:"pass"`
}

// WriteJSON writes r as indented JSON, ending with a newline. JSON has no NaN or
// infinity: such figures (which Evaluate fails) are written as 0, and their checks' Detail
// says what was measured.
func WriteJSON(w io.Writer, r Report) error {
	r.Figures.Pairs = slices.Clone(r.Figures.Pairs)
	for i := range r.Figures.Pairs {
		p := &r.Figures.Pairs[i]
		for _, v := range []*float64{&p.MemorySignalUs, &p.PortSignalUs, &p.MemoryPutGBs, &p.PortPutGBs} {
			*v = finite(*v)
		}
	}
	r.Figures.Collectives = slices.Clone(r.Figures.Collectives)
	for i := range r.Figures.Collectives {
		c := &r.Figures.Collectives[i]
		c.TimeUs, c.BusBw = finite(c.TimeUs), finite(c.BusBw)
	}
	if c := r.Figures.Copies; c != nil {
		cp := *c
		cp.HostToDeviceGBs, cp.DeviceToHostGBs, cp.DeviceCopyGBs = finite(cp.HostToDeviceGBs), finite(cp.DeviceToHostGBs), finite(cp.DeviceCopyGBs)
		r.Figures.Copies = &cp
	}
	r.Checks = slices.Clone(r.Checks)
	for i := range r.Checks {
		c := &r.Checks[i]
		if math.IsNaN(c.Value) || math.IsInf(c.Value, 0) {
			c.ValueText = strconv.FormatFloat(c.Value, 'g', -1, 64)
		}
		c.Value, c.Limit = finite(c.Value), finite(c.Limit)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("acceptance: JSON report: %w", err)
	}
	if _, err := w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("acceptance: write JSON report: %w", err)
	}
	return nil
}

// finite returns v, or 0 when v is NaN or infinite.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// WriteTable writes the checks as an ASCII table (check, pair/subject, measured, limit,
// verdict: PASS, FAIL or SKIP, the last two with the check's Detail) and then the line
// Summary returns.
func WriteTable(w io.Writer, checks []Check) error {
	// tablewriter ignores write errors, so render into memory first.
	var buf bytes.Buffer
	table := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{
			PerColumn: []tw.Align{tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignLeft, tw.AlignLeft},
		}),
	)
	table.Header("check", "pair/subject", "measured", "limit", "verdict")
	for _, c := range checks {
		subject := c.Pair
		if subject == "" {
			subject = c.Subject
		}
		verdict := "PASS"
		if c.Skip {
			verdict = "SKIP: " + c.Detail
		} else if !c.Pass {
			verdict = "FAIL"
			if c.Detail != "" {
				verdict += ": " + c.Detail
			}
		}
		if err := table.Append([]string{c.Name, subject, valueText(c), limitText(c), verdict}); err != nil {
			return fmt.Errorf("acceptance: table: add %s: %w", c.Name, err)
		}
	}
	if err := table.Render(); err != nil {
		return fmt.Errorf("acceptance: table: render: %w", err)
	}
	buf.WriteString(Summary(checks) + "\n")
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("acceptance: write table: %w", err)
	}
	return nil
}

// formatNumber writes v with at most two decimals and no trailing zeros: 0.68, 364.3, 18.
func formatNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// withUnit appends unit to a number, if there is one.
func withUnit(number, unit string) string {
	if unit == "" {
		return number
	}
	return number + " " + unit
}

// valueText is what the table shows as the check's measured figure.
func valueText(c Check) string {
	if c.ValueText != "" {
		return c.ValueText
	}
	return withUnit(formatNumber(c.Value), c.Unit)
}

// limitText is what the table shows as the check's limit: "<= 2 us", "== H200 SXM", or "-"
// when the check compares nothing.
func limitText(c Check) string {
	switch {
	case c.Cmp == "":
		return "-"
	case c.LimitText != "":
		return c.Cmp + " " + c.LimitText
	}
	return c.Cmp + " " + withUnit(formatNumber(c.Limit), c.Unit)
}

// Summary returns the one-line verdict: "acceptance: PASS (n checks)", or, when a check
// failed, "acceptance: FAIL: k of n checks failed; slowest/broken pairs: 0-3 (port put
// bandwidth 120 GB/s < 330), ...; other failures: allreduce 256M (...)". Broken pairs
// (errors, wrong data, missing figures) come first, then the slowest relative to their
// limits; at most five pairs and five other subjects are named. Skipped checks are not
// counted among the n but after them ("n checks, s skipped"). No check made (none, or only
// skipped ones) is a failure too.
func Summary(checks []Check) string {
	skips := 0
	for _, c := range checks {
		if c.Skip {
			skips++
		}
	}
	skipNote := ""
	if skips > 0 {
		skipNote = fmt.Sprintf(", %d skipped", skips)
	}
	made := len(checks) - skips
	if made == 0 {
		return "acceptance: FAIL: nothing was checked" + skipNote
	}
	var pairs, others []*failureGroup
	index := map[string]*failureGroup{}
	failed := 0
	for _, c := range checks {
		if c.Pass || c.Skip {
			continue
		}
		failed++
		key, list := "pair "+c.Pair, &pairs
		if c.Pair == "" {
			key, list = c.Subject, &others
			if key == "" {
				key = c.Name
			}
		}
		g := index[key]
		if g == nil {
			g = &failureGroup{name: strings.TrimPrefix(key, "pair ")}
			index[key] = g
			*list = append(*list, g)
		}
		g.items = append(g.items, describeFailure(c))
		g.severity = max(g.severity, severity(c))
	}
	if failed == 0 {
		if made == 1 {
			return "acceptance: PASS (1 check" + skipNote + ")"
		}
		return fmt.Sprintf("acceptance: PASS (%d checks%s)", made, skipNote)
	}
	slices.SortStableFunc(pairs, func(a, b *failureGroup) int { return cmp.Compare(b.severity, a.severity) })
	parts := []string{fmt.Sprintf("acceptance: FAIL: %d of %d checks failed%s", failed, made, skipNote)}
	if len(pairs) > 0 {
		parts = append(parts, "slowest/broken pairs: "+listGroups(pairs))
	}
	if len(others) > 0 {
		parts = append(parts, "other failures: "+listGroups(others))
	}
	return strings.Join(parts, "; ")
}

// failureGroup is the failed checks of one pair or subject.
type failureGroup struct {
	name     string
	items    []string
	severity float64
}

// maxGroups is how many pairs, and how many other subjects, Summary names.
const maxGroups = 5

// listGroups writes groups as "0-3 (item, item), 1-2 (item)", naming at most maxGroups.
func listGroups(groups []*failureGroup) string {
	var out []string
	for i, g := range groups {
		if i == maxGroups {
			out = append(out, fmt.Sprintf("and %d more", len(groups)-maxGroups))
			break
		}
		out = append(out, g.name+" ("+strings.Join(g.items, ", ")+")")
	}
	return strings.Join(out, ", ")
}

// maxDetail is how many bytes of a check's Detail Summary keeps.
const maxDetail = 100

// describeFailure says briefly why c failed: "port put bandwidth 120 GB/s < 330",
// "data verification: 12 bytes wrong".
func describeFailure(c Check) string {
	if c.Detail != "" {
		d := c.Detail
		if len(d) > maxDetail {
			d = strings.ToValidUTF8(d[:maxDetail], "") + "..."
		}
		if strings.HasPrefix(strings.ToLower(d), strings.ToLower(c.Name)) {
			return d
		}
		return c.Name + ": " + d
	}
	limit := formatNumber(c.Limit)
	if c.LimitText != "" {
		limit = c.LimitText
	}
	return c.Name + " " + valueText(c) + " " + negate(c.Cmp) + " " + limit
}

// negate returns the comparison that holds when cmp fails.
func negate(cmp string) string {
	switch cmp {
	case AtMost:
		return ">"
	case AtLeast:
		return "<"
	case Equal:
		return "!="
	}
	return "vs"
}

// severity ranks a failed check: how many times worse than its limit the figure is, or
// +Inf when the check failed for a reason other than a figure missing its limit.
func severity(c Check) float64 {
	if c.Detail != "" || c.ValueText != "" {
		return math.Inf(1)
	}
	switch {
	case c.Cmp == AtLeast && c.Value > 0:
		return c.Limit / c.Value
	case c.Cmp == AtMost && c.Limit > 0:
		return c.Value / c.Limit
	}
	return math.Inf(1)
}
