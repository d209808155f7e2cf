package results

import (
	"fmt"
	"strings"
)

// PingPongRow is one line of the ping-pong table, our extension measuring
// point-to-point latency and bandwidth between a pair of ranks.
type PingPongRow struct {
	Pair      string  // ranks involved, e.g. "0-1"
	Channel   string  // "memory" or "port"
	Mode      string  // "signal", "put" or "put-bidir"
	Size      int64   // bytes per message
	TimeUs    float64 // average round-trip time, microseconds
	LatencyUs float64 // one-way latency, microseconds
	BwGBs     float64 // bandwidth, GB/s
	Wrong     int64   // wrong elements; -1 = not checked (N/A / JSON null)
}

// pingPongTitle is centred over the numeric columns of the ping-pong table.
const pingPongTitle = "ping-pong"

// Ping-pong column layout. Rows start two characters wider than the header
// cells because header lines begin with "# ", as in nccl-tests.
const (
	ppHeadFmt = "# %6s  %8s  %10s  %12s  %7s  %7s  %6s  %6s"
	ppRowFmt  = "%8s  %8s  %10s  %12d  %7s  %7s  %6s  %6s"
	ppNumCols = 2 + timeWidth + 2 + timeWidth + 2 + bwWidth + 2 + 6 // width under the title
)

// PingPongHeader prints a bare "#" separator, then the three-line '#'
// column header of the ping-pong table: a title line, the column names and
// their units. It replaces a
// collective column header that Header left pending, so a ping-pong-only
// run does not show the collective columns, and Footer then leaves out the
// average bus bandwidth, which point to point does not have.
func (p *TextPrinter) PingPongHeader() {
	p.pendingCol = false
	p.pingPong = true
	p.printf("#\n")
	lead := fmt.Sprintf("# %6s  %8s  %10s  %12s", "", "", "", "")
	p.printf("%s\n", strings.TrimRight(lead+centre(pingPongTitle, ppNumCols), " "))
	p.printf(ppHeadFmt+"\n", "pair", "channel", "mode", "size", "time", "lat", "algbw", "#wrong")
	p.printf("%s\n", strings.TrimRight(fmt.Sprintf(ppHeadFmt, "", "", "", "(B)", "(us)", "(us)", "(GB/s)", ""), " "))
}

// PingPongRow prints one aligned ping-pong line, using the same number
// formatting as the collective rows (N/A is right-aligned here, unlike
// nccl-tests' rows).
func (p *TextPrinter) PingPongRow(r PingPongRow) {
	p.printf(ppRowFmt+"\n", r.Pair, r.Channel, r.Mode, r.Size,
		FormatTime(r.TimeUs), FormatTime(r.LatencyUs), FormatBw(r.BwGBs), FormatWrong(r.Wrong))
}

// centre pads s with spaces on both sides to width (extra space on the
// right); s is returned unchanged when it is already wider.
func centre(s string, width int) string {
	pad := width - len(s)
	if pad <= 0 {
		return s
	}
	left := pad / 2
	return strings.Repeat(" ", left) + s + strings.Repeat(" ", pad-left)
}
