package acceptance

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mscclpp-bench/mscclpp-bench/internal/bytesize"
)

// WriteAcrossHosts writes, as '#' lines for the report's header, what was measured between
// hosts: the hosts and their ranks, each rank's network link and its rate as read, each pair of ranks on different hosts with the
// transport its port channels used, its one-way signal latency and put bandwidth, and each
// collective run on every rank with its algorithm. It writes nothing for a job on one host.
func WriteAcrossHosts(w io.Writer, f Figures, putBytes int64) error {
	if len(f.Hosts) < 2 {
		return nil
	}
	var b strings.Builder
	var hosts []string
	for _, n := range f.Hosts {
		hosts = append(hosts, fmt.Sprintf("%s (ranks %s)", orNode(n.Hostname), joinInts(n.Ranks)))
	}
	fmt.Fprintf(&b, "# across hosts: %d hosts: %s\n", len(f.Hosts), strings.Join(hosts, ", "))
	for _, l := range f.Links {
		rate := l.Rate
		if l.GBs <= 0 {
			rate = "no speed: " + l.Unknown
		}
		fmt.Fprintf(&b, "# link of rank %d on %s: %s %s (%s)\n", l.Rank, orNode(l.Host), l.Transport, orDashText(l.Device), rate)
	}
	fmt.Fprintf(&b, "# %-7s  %-9s  %12s  %16s  %s\n", "pair", "transport", "port signal", "port put "+bytesize.Format(putBytes), "wrong")
	for _, p := range f.Pairs {
		if !p.AcrossHosts {
			continue
		}
		if p.Err != "" {
			fmt.Fprintf(&b, "# %-7s  %-9s  error: %s\n", pairName(p.A, p.B), orDashText(p.Transport), p.Err)
			continue
		}
		fmt.Fprintf(&b, "# %-7s  %-9s  %12s  %16s  %d B\n", pairName(p.A, p.B), orDashText(p.Transport),
			withUnit(formatNumber(p.PortSignalUs), "us"), withUnit(formatNumber(p.PortPutGBs), "GB/s"), p.Wrong)
	}
	fmt.Fprintf(&b, "# %-15s  %-9s  %12s  %16s  %s\n", "collective", "algorithm", "time", "bus bandwidth", "wrong")
	for _, c := range f.Collectives {
		if !c.AcrossHosts {
			continue
		}
		name := c.Collective + " " + bytesize.Format(c.Size)
		if c.Skip != "" {
			fmt.Fprintf(&b, "# %-15s  %-9s  skipped: %s\n", name, "-", c.Skip)
			continue
		}
		if c.Err != "" {
			fmt.Fprintf(&b, "# %-15s  %-9s  error: %s\n", name, orDashText(c.Algorithm), c.Err)
			continue
		}
		fmt.Fprintf(&b, "# %-15s  %-9s  %12s  %16s  %d B\n", name, orDashText(c.Algorithm),
			withUnit(formatNumber(c.TimeUs), "us"), withUnit(formatNumber(c.BusBw), "GB/s"), c.Wrong)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("acceptance: write the figures across hosts: %w", err)
	}
	return nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func orDashText(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
