package acceptance

import (
	"fmt"
	"strings"

	"github.com/mscclpp-bench/mscclpp-bench/internal/bytesize"
)

// linkOf returns rank's link of the transport, if it was read.
func linkOf(f Figures, rank int, transport string) (Link, bool) {
	for _, l := range f.Links {
		if l.Rank == rank && l.Transport == transport {
			return l, true
		}
	}
	return Link{}, false
}

// pairLink returns the slower of the two links of pair p (that of rank A on a tie), or
// why no rate is known for one of them.
func pairLink(f Figures, p PairFigures) (Link, string) {
	var slow Link
	for i, r := range []int{p.A, p.B} {
		l, ok := linkOf(f, r, p.Transport)
		switch {
		case !ok:
			return Link{}, fmt.Sprintf("rank %d's %s link was not read", r, orDashText(p.Transport))
		case l.GBs <= 0:
			return Link{}, fmt.Sprintf("rank %d's link %s", r, l)
		case i == 0 || l.GBs < slow.GBs:
			slow = l
		}
	}
	return slow, ""
}

// networkPairChecks are the limits of a pair across hosts: the spec's, else those from
// the pair's links (NetworkLinkFraction), else skipped checks that say why.
func networkPairChecks(spec Spec, f Figures, p PairFigures) []Check {
	pair := pairName(p.A, p.B)
	link, unknown := pairLink(f, p)
	fromLinks := spec.NetworkLinkFraction > 0
	var checks []Check

	switch {
	case spec.MaxNetworkSignalUs > 0:
		checks = append(checks, compare(CheckNetworkSignal, pair, "", p.PortSignalUs, spec.MaxNetworkSignalUs, "us", AtMost))
	case !fromLinks:
		checks = append(checks, skipped(CheckNetworkSignal, pair, "", "no limit: max_network_signal_us and network_link_fraction are 0"))
	case unknown != "":
		checks = append(checks, skipped(CheckNetworkSignal, pair, "", "no limit: "+unknown+"; set max_network_signal_us"))
	case DefaultNetworkSignalUs[p.Transport] == 0:
		checks = append(checks, skipped(CheckNetworkSignal, pair, "", fmt.Sprintf("no built-in limit for transport %q; set max_network_signal_us", p.Transport)))
	default:
		limit := DefaultNetworkSignalUs[p.Transport]
		c := compare(CheckNetworkSignal, pair, "", p.PortSignalUs, limit, "us", AtMost)
		if !c.Pass && c.Detail == "" {
			c.Detail = fmt.Sprintf("%s us > %s us, the built-in limit over %s", formatNumber(p.PortSignalUs), formatNumber(limit), p.Transport)
		}
		checks = append(checks, c)
	}

	switch {
	case spec.MinNetworkPutGBs > 0:
		checks = append(checks, compare(CheckNetworkPut, pair, "", p.PortPutGBs, spec.MinNetworkPutGBs, "GB/s", AtLeast))
	case !fromLinks:
		checks = append(checks, skipped(CheckNetworkPut, pair, "", "no floor: min_network_put_gbs and network_link_fraction are 0"))
	case unknown != "":
		checks = append(checks, skipped(CheckNetworkPut, pair, "", "no floor: "+unknown+"; set min_network_put_gbs"))
	default:
		floor := spec.NetworkLinkFraction * link.GBs
		c := compare(CheckNetworkPut, pair, "", p.PortPutGBs, floor, "GB/s", AtLeast)
		if !c.Pass && c.Detail == "" {
			c.Detail = fmt.Sprintf("%s GB/s < %s GB/s, %s %% of rank %d's link %s", formatNumber(p.PortPutGBs), formatNumber(floor),
				formatNumber(spec.NetworkLinkFraction*100), link.Rank, link)
		}
		checks = append(checks, c)
	}
	return checks
}

// linkBusBwFloor returns, for the collectives across hosts, the bus bandwidth floor that
// the links give a limit of at least LinkFloorBytes: NetworkLinkFraction of the slowest
// rank's link divided by the most ranks on one host. apply is false where no floor is
// due (a small size, or no NetworkLinkFraction); floor is 0 with why when one is due but
// a link's rate is unknown.
func linkBusBwFloor(spec Spec, f Figures) func(CollectiveLimit) (floor float64, why string, apply bool) {
	return func(l CollectiveLimit) (float64, string, bool) {
		if spec.NetworkLinkFraction <= 0 || l.Size < LinkFloorBytes {
			return 0, "", false
		}
		var slow Link
		var unknown []string
		found := false
		for _, k := range f.Links {
			switch {
			case k.GBs <= 0:
				unknown = append(unknown, fmt.Sprintf("rank %d's link %s", k.Rank, k))
			case !found || k.GBs < slow.GBs:
				slow, found = k, true
			}
		}
		switch {
		case len(unknown) > 0:
			if len(unknown) > 2 {
				unknown = append(unknown[:2], fmt.Sprintf("%d more", len(unknown)-2))
			}
			return 0, "no floor: " + strings.Join(unknown, ", ") + "; set min_bus_bw", true
		case !found:
			return 0, "no floor: no link was read; set min_bus_bw", true
		}
		perHost := 1
		for _, n := range f.Hosts {
			perHost = max(perHost, len(n.Ranks))
		}
		return spec.NetworkLinkFraction * slow.GBs / float64(perHost), "", true
	}
}

// copyChecks are a one-rank job's: each copy's bandwidth against its floor (skipped
// without one) and the copies' data.
func copyChecks(spec Spec, c CopyFigures) []Check {
	subject := bytesize.Format(c.Bytes)
	if c.Err != "" {
		return []Check{failure(CheckMeasurement, "", "copies "+subject, "error", c.Err)}
	}
	var checks []Check
	for _, x := range []struct {
		name         string
		value, limit float64
		key          string
	}{
		{CheckHostToDevice, c.HostToDeviceGBs, spec.MinHostToDeviceGBs, "min_host_to_device_gbs"},
		{CheckDeviceToHost, c.DeviceToHostGBs, spec.MinDeviceToHostGBs, "min_device_to_host_gbs"},
		{CheckDeviceCopy, c.DeviceCopyGBs, spec.MinDeviceCopyGBs, "min_device_copy_gbs"},
	} {
		if x.limit > 0 {
			checks = append(checks, compare(x.name, "", subject, x.value, x.limit, "GB/s", AtLeast))
		} else {
			checks = append(checks, skipped(x.name, "", subject, fmt.Sprintf("no floor: %s is 0 (measured %s GB/s)", x.key, formatNumber(x.value))))
		}
	}
	return append(checks, verification("", "copies "+subject, c.Wrong, ""))
}
