package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// addrSpec is a parsed bootstrap address. Accepted forms:
//
//	""                     nothing given (CreateUniqueID only: pick IP and port)
//	":port"                port only (CreateUniqueID only: pick the IP)
//	"ip:port"              IPv4 "10.0.0.1:5000" or IPv6 "[fd00::1]:5000"
//	"name:port"            a host name, or (CreateUniqueID only) an interface
//	                       name such as "eth0:5000", whose first address is used
//	"interface:ip:port"    as "ip:port"; the interface selects the local
//	"interface:name:port"  address on which each rank opens its own listener
//
// IPv6 literals must be bracketed; IPv6 zones are not supported. Port 0
// means "any free port" and is only accepted by CreateUniqueID.
type addrSpec struct {
	Iface string     // interface for this rank's listener; "" if not given
	IP    netip.Addr // the host as an IP literal; invalid if a name or not given
	Name  string     // the host as a name (host or interface); "" if an IP or not given
	Port  uint16
}

// hasHost reports whether the spec names a host (IP or name).
func (s addrSpec) hasHost() bool { return s.IP.IsValid() || s.Name != "" }

// parseAddrSpec parses s without touching the network.
func parseAddrSpec(s string) (addrSpec, error) {
	var spec addrSpec
	if s == "" {
		return spec, nil
	}
	bad := func(format string, args ...any) (addrSpec, error) {
		return addrSpec{}, fmt.Errorf("bad address %q: %s", s, fmt.Sprintf(format, args...))
	}
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return bad("missing port; want [interface:]ip:port")
	}
	head, portStr := s[:i], s[i+1:]
	if portStr == "" || strings.Trim(portStr, "0123456789") != "" {
		return bad("port %q is not a number", portStr)
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return bad("port %q out of range", portStr)
	}
	spec.Port = uint16(port)
	if head == "" {
		return spec, nil
	}

	var host string
	hasIface := false
	if strings.HasSuffix(head, "]") {
		j := strings.LastIndexByte(head, '[')
		if j < 0 {
			return bad("unbalanced ']'")
		}
		lit := head[j+1 : len(head)-1]
		ip, err := netip.ParseAddr(lit)
		if err != nil || !ip.Is6() {
			return bad("%q is not an IPv6 address", lit)
		}
		if ip.Zone() != "" {
			return bad("IPv6 zones are not supported")
		}
		spec.IP = ip.Unmap()
		prefix := head[:j]
		if prefix != "" {
			if !strings.HasSuffix(prefix, ":") {
				return bad("unexpected %q before '['", prefix)
			}
			spec.Iface, hasIface = prefix[:len(prefix)-1], true
		} else {
			return spec, nil
		}
	} else {
		if strings.ContainsAny(head, "[]") {
			return bad("unbalanced brackets")
		}
		if ip, err := netip.ParseAddr(head); err == nil && ip.Is6() {
			return bad("IPv6 addresses must be bracketed, e.g. [%s]:%d", ip, port)
		}
		host = head
		if k := strings.IndexByte(head, ':'); k >= 0 {
			spec.Iface, host, hasIface = head[:k], head[k+1:], true
			if strings.IndexByte(host, ':') >= 0 {
				return bad("too many ':'; IPv6 addresses must be bracketed")
			}
		}
		if host == "" {
			return bad("empty host")
		}
		if ip, err := netip.ParseAddr(host); err == nil {
			if ip.Zone() != "" {
				return bad("IPv6 zones are not supported")
			}
			spec.IP = ip.Unmap()
		} else if !validName(host) {
			return bad("%q is neither an IP address nor a valid host or interface name", host)
		} else {
			spec.Name = host
		}
	}
	if hasIface && !validName(spec.Iface) {
		return bad("bad interface name %q", spec.Iface)
	}
	return spec, nil
}

// validName accepts host names and Linux interface names: 1-253 printable
// ASCII characters without spaces, ':', '/', '[', ']' or '%'.
func validName(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(":/[]%", c) >= 0 {
			return false
		}
	}
	return true
}

// resolveRootForCreate returns the root address rank 0 should listen on
// for CreateUniqueID. Port 0 is kept (the caller picks a free port).
func resolveRootForCreate(ctx context.Context, spec addrSpec) (netip.AddrPort, error) {
	if spec.IP.IsValid() {
		return netip.AddrPortFrom(spec.IP, spec.Port), nil
	}
	if spec.Name == "" {
		return netip.AddrPortFrom(defaultIP(), spec.Port), nil
	}
	if ifi, err := net.InterfaceByName(spec.Name); err == nil {
		ip, err := interfaceIP(ifi)
		if err != nil {
			return netip.AddrPort{}, err
		}
		return netip.AddrPortFrom(ip, spec.Port), nil
	}
	ip, err := lookupHost(ctx, spec.Name)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("%q is neither a local interface nor a resolvable host: %w", spec.Name, err)
	}
	return netip.AddrPortFrom(ip, spec.Port), nil
}

// resolveRootForInit returns the root address every rank connects to in
// InitializeAddr. A name is a host name here, never an interface: an
// interface name would resolve to a different IP on every host.
func resolveRootForInit(ctx context.Context, spec addrSpec) (netip.AddrPort, error) {
	if !spec.hasHost() {
		return netip.AddrPort{}, errors.New("root address needs the root's IP or host name, e.g. 10.0.0.1:5000")
	}
	if spec.Port == 0 {
		return netip.AddrPort{}, errors.New("root address needs a non-zero port")
	}
	ip := spec.IP
	if !ip.IsValid() {
		var err error
		if ip, err = lookupHost(ctx, spec.Name); err != nil {
			return netip.AddrPort{}, fmt.Errorf("resolving root host %q: %w", spec.Name, err)
		}
	}
	addr := netip.AddrPortFrom(ip, spec.Port)
	if err := checkRootAddr(addr); err != nil {
		return netip.AddrPort{}, fmt.Errorf("bad root address: %w", err)
	}
	return addr, nil
}

// lookupHost resolves a host name, preferring IPv4.
func lookupHost(ctx context.Context, name string) (netip.Addr, error) {
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", name)
	if err != nil {
		return netip.Addr{}, err
	}
	var v6 netip.Addr
	for _, ip := range ips {
		ip = ip.Unmap()
		if ip.Is4() {
			return ip, nil
		}
		if !v6.IsValid() && ip.Zone() == "" {
			v6 = ip
		}
	}
	if v6.IsValid() {
		return v6, nil
	}
	return netip.Addr{}, fmt.Errorf("no usable address for %q", name)
}

// defaultIP returns the first IPv4 address of the first up, non-loopback
// interface, or 127.0.0.1 if there is none.
func defaultIP() netip.Addr {
	ifs, err := net.Interfaces()
	if err == nil {
		for i := range ifs {
			ifi := &ifs[i]
			if ifi.Flags&net.FlagUp == 0 || ifi.Flags&net.FlagLoopback != 0 {
				continue
			}
			if ip, ok := firstIP(ifi, true); ok {
				return ip
			}
		}
	}
	return netip.AddrFrom4([4]byte{127, 0, 0, 1})
}

// interfaceIP returns the address of an interface: its first IPv4, else its
// first global IPv6.
func interfaceIP(ifi *net.Interface) (netip.Addr, error) {
	if ifi.Flags&net.FlagUp == 0 {
		return netip.Addr{}, fmt.Errorf("interface %s is down", ifi.Name)
	}
	if ip, ok := firstIP(ifi, true); ok {
		return ip, nil
	}
	if ip, ok := firstIP(ifi, false); ok {
		return ip, nil
	}
	return netip.Addr{}, fmt.Errorf("interface %s has no usable IP address", ifi.Name)
}

// interfaceIPByName is interfaceIP for a name.
func interfaceIPByName(name string) (netip.Addr, error) {
	ifi, err := net.InterfaceByName(name)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("interface %q: %w", name, err)
	}
	return interfaceIP(ifi)
}

// firstIP returns the interface's first IPv4 (v4 true) or global IPv6 (v4
// false) address, skipping link-local ones.
func firstIP(ifi *net.Interface, v4 bool) (netip.Addr, bool) {
	addrs, err := ifi.Addrs()
	if err != nil {
		return netip.Addr{}, false
	}
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip, ok := netip.AddrFromSlice(ipn.IP)
		if !ok {
			continue
		}
		ip = ip.Unmap()
		if ip.Is4() != v4 || ip.IsLinkLocalUnicast() || ip.IsUnspecified() || ip.IsMulticast() {
			continue
		}
		return ip, true
	}
	return netip.Addr{}, false
}
