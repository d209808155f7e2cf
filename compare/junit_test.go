package compare

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// parsed mirrors the JUnit elements the tests look at, independently of the
// types used to write them.
type parsed struct {
	XMLName  xml.Name `xml:"testsuite"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Cases    []struct {
		Name      string `xml:"name,attr"`
		ClassName string `xml:"classname,attr"`
		Failure   *struct {
			Message string `xml:"message,attr"`
			Type    string `xml:"type,attr"`
		} `xml:"failure"`
		Skipped *struct {
			Message string `xml:"message,attr"`
		} `xml:"skipped"`
		SystemOut string `xml:"system-out"`
	} `xml:"testcase"`
}

func TestWriteJUnit(t *testing.T) {
	base := report(
		row("rsag", 4096, pl(10, 1), pl(10, 1)),
		row("rsag", 8<<20, pl(100, 200), pl(100, 200)),
		row("rsag", 16<<20, pl(100, 0), nil),
	)
	cur := report(
		row("rsag", 4096, pl(8, 1), pl(12.5, 1)),
		row("rsag", 8<<20, pl(100, 200), nil),
		row("rsag", 16<<20, pl(100, 5), nil),
		row("ll8", 4096, pl(5, 1), nil),
	)
	cur.Rows[1].OutOfPlace.Wrong = 7
	base.PingPong = []results.PingPongRow{{Pair: "0-1", Channel: "memory", Mode: "signal", LatencyUs: 1}}
	cur.PingPong = []results.PingPongRow{{Pair: "0-1", Channel: "memory", Mode: "signal", LatencyUs: 1.01}}
	res, err := Compare(base, cur, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	suite := `compare a.json vs b.json <&"'>`
	if err := WriteJUnit(&buf, res, suite); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), `<?xml version="1.0" encoding="UTF-8"?>`) {
		t.Errorf("no XML declaration: %q", buf.String()[:40])
	}
	var got parsed
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("invalid XML: %v\n%s", err, buf.String())
	}
	if got.Name != suite || got.Tests != 7 || got.Failures != 3 || got.Skipped != 2 {
		t.Errorf("suite %q: tests %d, failures %d, skipped %d; want %q, 7, 3, 2", got.Name, got.Tests, got.Failures, got.Skipped, suite)
	}
	want := []struct {
		name, class string
		failure     string // failure type; "" for none
		skipped     bool
	}{
		{"all_reduce_perf/rsag/float/sum/out-of-place/4096", "all_reduce_perf", "", false},
		{"all_reduce_perf/rsag/float/sum/in-place/4096", "all_reduce_perf", "regressed", false},
		{"all_reduce_perf/rsag/float/sum/out-of-place/8388608", "all_reduce_perf", "wrong", false},
		{"all_reduce_perf/rsag/float/sum/in-place/8388608", "all_reduce_perf", "missing", false},
		{"all_reduce_perf/rsag/float/sum/out-of-place/16777216", "all_reduce_perf", "", true},
		{"all_reduce_perf/ll8/float/sum/out-of-place/4096", "all_reduce_perf", "", true},
		{"all_reduce_perf/0-1/memory/signal/0", "all_reduce_perf", "", false},
	}
	if len(got.Cases) != len(want) {
		t.Fatalf("got %d test cases, want %d", len(got.Cases), len(want))
	}
	for i, w := range want {
		c := got.Cases[i]
		if c.Name != w.name || c.ClassName != w.class {
			t.Errorf("case %d: %s (%s), want %s (%s)", i, c.Name, c.ClassName, w.name, w.class)
		}
		switch {
		case w.failure == "" && c.Failure != nil:
			t.Errorf("%s: unexpected failure %+v", c.Name, *c.Failure)
		case w.failure != "" && (c.Failure == nil || c.Failure.Type != w.failure || !strings.HasPrefix(c.Failure.Message, w.failure+":")):
			t.Errorf("%s: failure %+v, want type %s", c.Name, c.Failure, w.failure)
		}
		if (c.Skipped != nil) != w.skipped {
			t.Errorf("%s: skipped %v, want %v", c.Name, c.Skipped != nil, w.skipped)
		}
		if c.SystemOut == "" {
			t.Errorf("%s: empty system-out", c.Name)
		}
	}
	if msg := got.Cases[1].Failure.Message; msg != "regressed: time +25.0%, beyond the 15.0% tolerance" {
		t.Errorf("regressed message %q", msg)
	}
	if msg := got.Cases[2].Failure.Message; msg != "wrong: 7 wrong elements" {
		t.Errorf("wrong message %q", msg)
	}
	if out := got.Cases[1].SystemOut; out != "time (us): baseline 10.00, current 12.50, change +25.0%, tolerance 15.0%" {
		t.Errorf("system-out %q", out)
	}
	if msg := got.Cases[4].Skipped.Message; msg != "n/a: baseline busbw is 0" {
		t.Errorf("n/a skipped message %q", msg)
	}
}

func TestWriteJUnitEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, &Result{}, "empty"); err != nil {
		t.Fatal(err)
	}
	var got parsed
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("invalid XML: %v\n%s", err, buf.String())
	}
	if got.Tests != 0 || len(got.Cases) != 0 {
		t.Errorf("tests %d, cases %d; want 0, 0", got.Tests, len(got.Cases))
	}
}
