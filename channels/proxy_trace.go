package channels

import (
	"fmt"
	"io"
	"time"
)

// proxyTraceMax is how many triggers a proxy trace records.
const proxyTraceMax = 1 << 16

// proxyTrace records the triggers a proxy handles (MeshOptions.ProxyTrace) on the proxy's
// thread, which only appends, and prints them once the proxy has stopped.
type proxyTrace struct {
	start   time.Time
	entries []proxyTraceEntry
	dropped int
}

type proxyTraceEntry struct {
	at, took time.Duration // handling began at start + at
	t        Trigger
	err      error
}

func newProxyTrace() *proxyTrace {
	return &proxyTrace{start: time.Now(), entries: make([]proxyTraceEntry, 0, 1024)}
}

// add is ProxyService.Trace.
func (p *proxyTrace) add(t Trigger, took time.Duration, err error) {
	if len(p.entries) == proxyTraceMax {
		p.dropped++
		return
	}
	at := time.Since(p.start) - took
	p.entries = append(p.entries, proxyTraceEntry{at, took, t, err})
}

// print writes one line per trigger (a nil trace prints nothing).
func (p *proxyTrace) print(w io.Writer, rank int) {
	if p == nil {
		return
	}
	for _, e := range p.entries {
		fmt.Fprintf(w, "proxy rank %d: at %.1f us: %v took %v err %v\n", rank, float64(e.at.Nanoseconds())/1e3, e.t, e.took, e.err)
	}
	if p.dropped > 0 {
		fmt.Fprintf(w, "proxy rank %d: %d more triggers not recorded\n", rank, p.dropped)
	}
}
