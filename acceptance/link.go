package acceptance

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Link is what acceptance read of the network link that one rank's connections to other
// hosts leave through: the Ethernet interface its data sockets listen on, or the HCA port
// its queue pairs use. The built-in network thresholds come from its rate.
type Link struct {
	Rank      int    `json:"rank"`
	Host      string `json:"host"`
	Transport string `json:"transport"` // "ethernet" or "ib"
	// Device is the interface ("eth0") or the HCA and port ("mlx5_0 port 1"); "" when none
	// was found.
	Device string `json:"device,omitempty"`
	// GBs is the link's rate in GB/s (10^9 bytes a second): an Ethernet NIC's speed, an
	// HCA port's active rate. 0: unknown, and Unknown says why.
	GBs float64 `json:"gbs"`
	// Rate is the rate as the kernel wrote it: "100000 Mb/s", "400 Gb/sec (4X NDR)".
	Rate    string `json:"rate,omitempty"`
	Unknown string `json:"unknown,omitempty"`
}

// String describes the link for reports: "eth0 100 Gb/s", "lo: no speed (virtual interface)".
func (l Link) String() string {
	dev := l.Device
	if dev == "" {
		dev = l.Transport
	}
	if l.GBs <= 0 {
		return dev + ": no speed (" + l.Unknown + ")"
	}
	return dev + " " + formatNumber(l.GBs*8) + " Gb/s"
}

// ReadEthernetLink reads the speed of the network interface ifname from
// sysRoot/class/net/IFNAME/speed (sysRoot is "/sys" outside tests; the kernel writes Mb/s
// there). A virtual interface (no device behind it: loopback, veth, bridges) has no link
// speed, and neither has an interface whose driver reports none (-1, or a read error while
// the link is down); then GBs is 0 and Unknown says why.
func ReadEthernetLink(sysRoot, ifname string) Link {
	l := Link{Transport: "ethernet", Device: ifname}
	if ifname == "" {
		l.Unknown = "no interface found for the connection's address"
		return l
	}
	dir := filepath.Join(sysRoot, "class", "net", ifname)
	if _, err := os.Stat(dir); err != nil {
		l.Unknown = fmt.Sprintf("%s not found", dir)
		return l
	}
	if _, err := os.Stat(filepath.Join(dir, "device")); errors.Is(err, fs.ErrNotExist) {
		l.Unknown = "virtual interface"
		return l
	}
	data, err := os.ReadFile(filepath.Join(dir, "speed"))
	if err != nil {
		l.Unknown = "speed unreadable: " + pathErrText(err)
		return l
	}
	s := strings.TrimSpace(string(data))
	mbs, err := strconv.ParseInt(s, 10, 64)
	if err != nil || mbs <= 0 {
		l.Unknown = fmt.Sprintf("the driver reports speed %q", s)
		return l
	}
	l.Rate, l.GBs = s+" Mb/s", float64(mbs)/8000
	return l
}

// ReadIBLink reads the active rate of the HCA port the InfiniBand transport uses, from
// sysRoot/class/infiniband/DEV/ports/N/{state,rate}. hca is what $MSCCLPP_BENCH_IB_HCA
// names ("mlx5_0", "mlx5_0:1"); "" takes the first device, in name order, with an
// active port, as the transport does.
func ReadIBLink(sysRoot, hca string) Link {
	l := Link{Transport: "ib"}
	name, wantPort := hca, ""
	if i := strings.LastIndexByte(hca, ':'); i >= 0 {
		name, wantPort = hca[:i], hca[i+1:]
	}
	root := filepath.Join(sysRoot, "class", "infiniband")
	devs, err := os.ReadDir(root)
	if err != nil {
		l.Unknown = "no HCA: " + pathErrText(err)
		return l
	}
	var tried []string
	for _, d := range devs {
		if name != "" && d.Name() != name {
			continue
		}
		ports, err := os.ReadDir(filepath.Join(root, d.Name(), "ports"))
		if err != nil {
			tried = append(tried, d.Name()+": "+pathErrText(err))
			continue
		}
		slices.SortFunc(ports, func(a, b os.DirEntry) int { return portNumber(a.Name()) - portNumber(b.Name()) })
		for _, p := range ports {
			if wantPort != "" && p.Name() != wantPort {
				continue
			}
			dir := filepath.Join(root, d.Name(), "ports", p.Name())
			state, err := os.ReadFile(filepath.Join(dir, "state"))
			if err != nil || !strings.Contains(string(state), "ACTIVE") {
				tried = append(tried, fmt.Sprintf("%s port %s not active", d.Name(), p.Name()))
				continue
			}
			l.Device = fmt.Sprintf("%s port %s", d.Name(), p.Name())
			rate, err := os.ReadFile(filepath.Join(dir, "rate"))
			if err != nil {
				l.Unknown = "rate unreadable: " + pathErrText(err)
				return l
			}
			l.Rate = strings.TrimSpace(string(rate))
			if l.GBs = parseIBRate(l.Rate); l.GBs == 0 {
				l.Unknown = fmt.Sprintf("rate %q not understood", l.Rate)
			}
			return l
		}
	}
	switch {
	case len(tried) > 0:
		l.Unknown = "no active HCA port (" + strings.Join(tried, "; ") + ")"
	case name != "":
		l.Unknown = fmt.Sprintf("no HCA named %q", name)
	default:
		l.Unknown = "no HCA"
	}
	return l
}

// parseIBRate reads "400 Gb/sec (4X NDR)" or "2.5 Gb/sec (1X SDR)" as GB/s; 0 when it
// cannot.
func parseIBRate(s string) float64 {
	f := strings.Fields(s)
	if len(f) < 2 || !strings.HasPrefix(f[1], "Gb/s") {
		return 0
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || !(v > 0) || v > 1e6 {
		return 0
	}
	return v / 8
}

// portNumber orders HCA port folders by number (a name that is not one goes last).
func portNumber(name string) int {
	n, err := strconv.Atoi(name)
	if err != nil {
		return 1 << 30
	}
	return n
}

// pathErrText is err without the operation, for one-line reasons.
func pathErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// InterfaceOf returns the name of the network interface that holds address ip ("lo" for
// 127.0.0.1 on Linux), or an error when none does. An unspecified or invalid ip has none.
func InterfaceOf(ip netip.Addr) (string, error) {
	if !ip.IsValid() || ip.IsUnspecified() {
		return "", fmt.Errorf("address %v names no interface", ip)
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return "", fmt.Errorf("list network interfaces: %w", err)
	}
	for _, i := range ifs {
		addrs, err := i.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				if have, ok := netip.AddrFromSlice(n.IP); ok && have.Unmap() == ip.Unmap() {
					return i.Name, nil
				}
			}
		}
	}
	if ip.IsLoopback() {
		for _, i := range ifs { // 127.0.0.2 and the like: the loopback interface holds 127/8
			if i.Flags&net.FlagLoopback != 0 {
				return i.Name, nil
			}
		}
	}
	return "", fmt.Errorf("no network interface holds %v", ip)
}
