package results

import (
	"bytes"
	"testing"
)

func TestPingPongGolden(t *testing.T) {
	rows := []PingPongRow{
		{Pair: "0-1", Channel: "memory", Mode: "signal", Size: 0, TimeUs: 3.21, LatencyUs: 1.6, BwGBs: 0, Wrong: 0},
		{Pair: "0-1", Channel: "port", Mode: "put", Size: 4096, TimeUs: 10.5, LatencyUs: 5.25, BwGBs: 0.39, Wrong: -1},
		{Pair: "2-3", Channel: "port", Mode: "put-bidir", Size: 1 << 30, TimeUs: 12345.678, LatencyUs: 6172.839, BwGBs: 173.95, Wrong: 12},
	}
	want := `#
#                                                       ping-pong
#   pair   channel        mode          size     time      lat   algbw  #wrong
#                                        (B)     (us)     (us)  (GB/s)
     0-1    memory      signal             0     3.21     1.60    0.00       0
     0-1      port         put          4096    10.50     5.25    0.39     N/A
     2-3      port   put-bidir    1073741824  12345.7  6172.84  173.95      12
`
	var buf bytes.Buffer
	p := NewTextPrinter(&buf)
	p.PingPongHeader()
	for _, r := range rows {
		p.PingPongRow(r)
	}
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	compareLines(t, buf.String(), want)
}

// TestPingPongAfterHeader checks that a ping-pong-only run does not print
// the collective column header that Header leaves pending.
func TestPingPongAfterHeader(t *testing.T) {
	var buf bytes.Buffer
	p := NewTextPrinter(&buf)
	p.Header(Header{Program: "mscclpp-bench", Version: "0.1.0", Collective: "pingpong", StepFactor: 2})
	p.PingPongHeader()
	p.PingPongRow(PingPongRow{Pair: "0-1", Channel: "memory", Mode: "put", Size: 8, TimeUs: 2, LatencyUs: 1, BwGBs: 0.004, Wrong: 0})
	p.Footer(Footer{AvgBusBw: 0})
	want := `# mscclpp-bench version 0.1.0
# Collective test starting: pingpong
# nThread 0 nGpus 0 minBytes 0 maxBytes 0 step: 2(factor) warmup iters: 0 iters: 0 agg iters: 0 validation: 0 graph: 0 unalign: 0
#
# Using devices
#
#                                                       ping-pong
#   pair   channel        mode          size     time      lat   algbw  #wrong
#                                        (B)     (us)     (us)  (GB/s)
     0-1    memory         put             8     2.00     1.00    0.00       0
# Out of bounds values : 0 OK
#
# Collective test concluded: pingpong
#

`
	compareLines(t, buf.String(), want)
}
