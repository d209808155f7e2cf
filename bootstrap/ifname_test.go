package bootstrap

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
)

func TestMatchInterface(t *testing.T) {
	ifs := []net.Interface{
		{Name: "lo", Flags: net.FlagUp | net.FlagLoopback},
		{Name: "docker0", Flags: net.FlagUp},
		{Name: "eth0", Flags: 0}, // down
		{Name: "eth1", Flags: net.FlagUp},
		{Name: "ib0", Flags: net.FlagUp},
		{Name: "eth2", Flags: net.FlagUp}, // up, but no address
	}
	addr := func(ifi *net.Interface) (netip.Addr, error) {
		if ifi.Name == "eth2" {
			return netip.Addr{}, errors.New("no address")
		}
		return netip.MustParseAddr("10.0.0." + string('0'+byte(len(ifi.Name)))), nil
	}
	cases := []struct{ spec, want string }{
		{"eth", "eth1"},    // prefix; eth0 is down
		{"ib,eth", "eth1"}, // the OS's order, not the list's
		{"=eth1", "eth1"},  // exact
		{"=eth", ""},       // exact, and no interface is called eth
		{"^docker,lo", "eth1"},
		{"^=docker0", "eth1"},
		{"lo", "lo"},           // loopback only when named
		{"^eth,docker", "ib0"}, // loopback never when excluding
		{"eth2", ""},           // no address
		{"", ""},
		{" , ", ""},
	}
	for _, c := range cases {
		name, _, err := matchInterface(c.spec, ifs, addr)
		if c.want == "" {
			if err == nil || !strings.Contains(err.Error(), SocketIfnameEnv) {
				t.Errorf("%q: picked %q, %v; want an error naming %s", c.spec, name, err, SocketIfnameEnv)
			}
			continue
		}
		if err != nil || name != c.want {
			t.Errorf("%q: picked %q, %v; want %q", c.spec, name, err, c.want)
		}
	}
}
