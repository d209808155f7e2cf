package bootstrap

import (
	"context"
	"net/netip"
	"strings"
	"testing"
)

func TestParseAddrSpec(t *testing.T) {
	ip := netip.MustParseAddr
	cases := []struct {
		in   string
		want addrSpec
		err  string
	}{
		{in: "", want: addrSpec{}},
		{in: ":5000", want: addrSpec{Port: 5000}},
		{in: "127.0.0.1:5000", want: addrSpec{IP: ip("127.0.0.1"), Port: 5000}},
		{in: "10.0.0.1:0", want: addrSpec{IP: ip("10.0.0.1")}},
		{in: "[::1]:29500", want: addrSpec{IP: ip("::1"), Port: 29500}},
		{in: "[::ffff:10.0.0.1]:7", want: addrSpec{IP: ip("10.0.0.1"), Port: 7}},
		{in: "eth0:10.0.0.1:5000", want: addrSpec{Iface: "eth0", IP: ip("10.0.0.1"), Port: 5000}},
		{in: "ib0:[fd00::2]:5000", want: addrSpec{Iface: "ib0", IP: ip("fd00::2"), Port: 5000}},
		{in: "eth0:5000", want: addrSpec{Name: "eth0", Port: 5000}},
		{in: "node-01.cluster:5000", want: addrSpec{Name: "node-01.cluster", Port: 5000}},
		{in: "eth0:node01:5000", want: addrSpec{Iface: "eth0", Name: "node01", Port: 5000}},
		{in: "127.0.0.1", err: "missing port"},
		{in: "nocolon", err: "missing port"},
		{in: "1.2.3.4:", err: "not a number"},
		{in: "1.2.3.4:65536", err: "out of range"},
		{in: "1.2.3.4:-1", err: "not a number"},
		{in: "1.2.3.4:+5", err: "not a number"},
		{in: "1.2.3.4:5x", err: "not a number"},
		{in: "::1:5000", err: "bracketed"},
		{in: "eth0:::1:5000", err: "too many"},
		{in: "[::1:5000", err: "unbalanced"},
		{in: "::1]:5000", err: "unbalanced"},
		{in: "[10.0.0.1]:5", err: "not an IPv6"},
		{in: "[fe80::1%eth0]:5", err: "zones"},
		{in: "x[::1]:5", err: "before '['"},
		{in: ":[::1]:5", err: "interface name"},
		{in: ":1.2.3.4:5", err: "interface name"},
		{in: "eth0::5", err: "empty host"},
		{in: "bad host:5", err: "neither an IP"},
		{in: "a:b:c:5", err: "too many"},
	}
	for _, c := range cases {
		got, err := parseAddrSpec(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parse(%q) = %+v, %v; want error containing %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("parse(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestResolveRoot(t *testing.T) {
	ctx := context.Background()
	spec, _ := parseAddrSpec("lo:0")
	a, err := resolveRootForCreate(ctx, spec)
	if err != nil || a.Addr() != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("create lo:0 = %v, %v", a, err)
	}
	spec, _ = parseAddrSpec("")
	if a, err := resolveRootForCreate(ctx, spec); err != nil || !a.Addr().Is4() || a.Port() != 0 {
		t.Errorf("create \"\" = %v, %v", a, err)
	}
	spec, _ = parseAddrSpec("localhost:5000")
	if a, err := resolveRootForInit(ctx, spec); err != nil || !a.Addr().IsLoopback() || a.Port() != 5000 {
		t.Errorf("init localhost:5000 = %v, %v", a, err)
	}
	for _, in := range []string{"", ":5000", "127.0.0.1:0", "0.0.0.0:5000"} {
		spec, _ := parseAddrSpec(in)
		if a, err := resolveRootForInit(ctx, spec); err == nil {
			t.Errorf("init %q = %v, want error", in, a)
		}
	}
	if _, err := interfaceIPByName("no-such-if0"); err == nil {
		t.Error("interfaceIPByName accepted a missing interface")
	}
}
