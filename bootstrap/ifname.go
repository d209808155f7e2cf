package bootstrap

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// SocketIfnameEnv chooses the network interface of the data sockets (and of the bootstrap
// when no address is given), like NCCL_SOCKET_IFNAME.
const SocketIfnameEnv = "MSCCLPP_BENCH_SOCKET_IFNAME"

// MatchInterface picks the first up interface, in the order the OS lists them, that the
// spec accepts and that has a usable address, and returns its name and address (its first
// IPv4, else its first global IPv6). The spec is NCCL_SOCKET_IFNAME's: a comma-separated
// list of name prefixes ("eth,ib"); "=" before the list makes the names exact ("=eth0");
// "^" before it (or before "=") excludes the listed interfaces instead ("^docker,lo").
// Loopback is picked only when the list names it.
func MatchInterface(spec string) (string, netip.Addr, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return "", netip.Addr{}, fmt.Errorf("list network interfaces: %w", err)
	}
	return matchInterface(spec, ifs, interfaceIP)
}

func matchInterface(spec string, ifs []net.Interface, addr func(*net.Interface) (netip.Addr, error)) (string, netip.Addr, error) {
	listed, exclude, err := parseIfname(spec)
	if err != nil {
		return "", netip.Addr{}, err
	}
	var seen []string
	for i := range ifs {
		ifi := &ifs[i]
		seen = append(seen, ifi.Name)
		hit := listed(ifi.Name)
		if hit == exclude || ifi.Flags&net.FlagUp == 0 || (ifi.Flags&net.FlagLoopback != 0 && !hit) {
			continue
		}
		if ip, err := addr(ifi); err == nil {
			return ifi.Name, ip, nil
		}
	}
	return "", netip.Addr{}, fmt.Errorf("%s=%q matches no up interface with an address (interfaces: %s)", SocketIfnameEnv, spec, strings.Join(seen, ", "))
}

// parseIfname reads an NCCL_SOCKET_IFNAME-style spec: listed says whether the list names
// an interface, exclude whether the list is of interfaces to avoid.
func parseIfname(spec string) (listed func(name string) bool, exclude bool, err error) {
	s := strings.TrimSpace(spec)
	exclude = strings.HasPrefix(s, "^")
	s = strings.TrimPrefix(s, "^")
	exact := strings.HasPrefix(s, "=")
	s = strings.TrimPrefix(s, "=")
	var names []string
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, false, fmt.Errorf("%s=%q names no interface", SocketIfnameEnv, spec)
	}
	return func(name string) bool {
		for _, n := range names {
			if name == n || (!exact && strings.HasPrefix(name, n)) {
				return true
			}
		}
		return false
	}, exclude, nil
}

// LocalAddr returns the address of this rank's own listener (valid after Initialize):
// the interface through which it reaches the root, or the one its address named.
func (b *TCPBootstrap) LocalAddr() netip.AddrPort {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.self
}
