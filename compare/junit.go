package compare

import (
	"encoding/xml"
	"fmt"
	"io"
)

// junitSuite is the <testsuite> element.
type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

// junitCase is one <testcase>.
type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// junitMessage is a <failure> or <skipped> element.
type junitMessage struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes res as a JUnit XML report: one <testsuite> named
// suiteName with one <testcase> per compared row, named by Row.Name and
// classed by collective. Regressed, missing and wrong rows carry a
// <failure> whose type is the verdict; new rows, and rows whose values
// could not be compared, are <skipped>. Each case's <system-out> states
// the metric, both values and the change.
func WriteJUnit(w io.Writer, res *Result, suiteName string) error {
	if res == nil {
		return fmt.Errorf("compare: write JUnit: nil result")
	}
	suite := junitSuite{Name: suiteName, Tests: len(res.Rows), Time: "0"}
	for i := range res.Rows {
		r := &res.Rows[i]
		c := junitCase{Name: r.Name(), ClassName: r.Collective, Time: "0", SystemOut: describe(r)}
		switch {
		case r.Verdict.Failure():
			c.Failure = &junitMessage{Message: failureMessage(r), Type: string(r.Verdict), Text: describe(r)}
			suite.Failures++
		case r.Verdict == New:
			c.Skipped = &junitMessage{Message: "new: not in the baseline"}
			suite.Skipped++
		case r.Verdict == NA:
			c.Skipped = &junitMessage{Message: "n/a: " + r.Note}
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("compare: write JUnit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(&suite); err != nil {
		return fmt.Errorf("compare: write JUnit: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("compare: write JUnit: %w", err)
	}
	return nil
}

// failureMessage is the one-line message of a failed row.
func failureMessage(r *Row) string {
	switch r.Verdict {
	case Missing:
		return "missing: in the baseline, not in the current run"
	case Wrong:
		return fmt.Sprintf("wrong: %d wrong elements", r.Wrong)
	default:
		return fmt.Sprintf("regressed: %s %s, beyond the %.1f%% tolerance", r.Metric, FormatChange(r.Change), r.Tolerance*100)
	}
}

// describe states a row's metric, values and change, e.g. "busbw (GB/s):
// baseline 183.52, current 150.20, change -18.2%, tolerance 5.0%".
func describe(r *Row) string {
	s := fmt.Sprintf("%s (%s): baseline %s, current %s, change %s, tolerance %.1f%%",
		r.Metric, r.Unit, formatValue(r.Baseline), formatValue(r.Current), FormatChange(r.Change), r.Tolerance*100)
	if r.Note != "" {
		s += "; " + r.Note
	}
	return s
}
