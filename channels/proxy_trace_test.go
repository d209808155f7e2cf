package channels

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestProxyTracePrints: the trace keeps what the proxy handled, in order, with when and how
// long, and says how many it did not keep; a nil trace prints nothing.
func TestProxyTracePrints(t *testing.T) {
	var none *proxyTrace
	var b strings.Builder
	none.print(&b, 0)
	if b.Len() != 0 {
		t.Fatalf("nil trace printed %q", b.String())
	}
	p := newProxyTrace()
	p.add(MakeTrigger(TriggerFlag, 3, 0, 0, 0), time.Microsecond, nil)
	p.add(MakeTrigger(TriggerData, 4, 16, 32, 64), 2*time.Microsecond, errors.New("boom"))
	p.entries = append(p.entries, make([]proxyTraceEntry, proxyTraceMax-2)...) // full: the next is dropped
	p.add(MakeTrigger(TriggerFlag, 5, 0, 0, 0), 0, nil)
	p.print(&b, 7)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != proxyTraceMax+1 {
		t.Fatalf("%d lines, want %d", len(lines), proxyTraceMax+1)
	}
	if !strings.HasPrefix(lines[0], "proxy rank 7: at ") || !strings.Contains(lines[0], "took 1µs err <nil>") {
		t.Errorf("first line %q", lines[0])
	}
	if !strings.Contains(lines[1], "took 2µs err boom") {
		t.Errorf("second line %q", lines[1])
	}
	if lines[len(lines)-1] != "proxy rank 7: 1 more triggers not recorded" {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
}
