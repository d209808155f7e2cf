package bootstrap

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

func testSecret() [32]byte {
	var s [32]byte
	for i := range s {
		s[i] = byte(i + 1)
	}
	return s
}

func TestUniqueIDRoundTrip(t *testing.T) {
	for _, a := range []string{"127.0.0.1:5000", "10.1.2.3:65535", "[fd00::1]:1", "[2001:db8::42]:29500"} {
		addr := netip.MustParseAddrPort(a)
		id, err := newUniqueID(addr, testSecret())
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		gotAddr, gotSecret, err := id.Decode()
		if err != nil {
			t.Fatalf("%s: decode: %v", a, err)
		}
		if gotAddr != addr || gotSecret != testSecret() {
			t.Errorf("%s: round trip gave %s", a, gotAddr)
		}
		for _, s := range []string{id.String(), fmt.Sprintf("%v", id), fmt.Sprintf("%#v", id), fmt.Sprintf("%s", id)} {
			if !strings.Contains(s, addr.String()) {
				t.Errorf("String %q lacks the address", s)
			}
			if strings.Contains(s, "0102030405") || strings.Contains(s, "[1 2 3 4") {
				t.Errorf("String %q leaks the secret", s)
			}
		}
	}
}

func TestUniqueIDRandomSecret(t *testing.T) {
	s1, err1 := newSecret()
	s2, err2 := newSecret()
	if err1 != nil || err2 != nil || s1 == s2 || s1 == ([32]byte{}) {
		t.Fatalf("bad secrets: %v %v", err1, err2)
	}
}

func TestUniqueIDReject(t *testing.T) {
	valid, err := newUniqueID(netip.MustParseAddrPort("127.0.0.1:5000"), testSecret())
	if err != nil {
		t.Fatal(err)
	}
	mod := func(f func(id *UniqueID)) UniqueID { id := valid; f(&id); return id }
	cases := []struct {
		name string
		id   UniqueID
		want string
	}{
		{"zero", UniqueID{}, "all zero"},
		{"magic", mod(func(id *UniqueID) { id[0] = 'X' }), "bad magic"},
		{"version", mod(func(id *UniqueID) { id[4] = 2 }), "unsupported version 2"},
		{"reserved header", mod(func(id *UniqueID) { id[6] = 1 }), "reserved byte 6"},
		{"reserved after port", mod(func(id *UniqueID) { id[27] = 1 }), "reserved byte 27"},
		{"reserved tail", mod(func(id *UniqueID) { id[127] = 0xff }), "reserved byte 127"},
		{"zero port", mod(func(id *UniqueID) { id[24], id[25] = 0, 0 }), "port is 0"},
		{"unspecified ip", mod(func(id *UniqueID) { copy(id[8:24], make([]byte, 16)) }), "unspecified"},
		{"unspecified v4", mod(func(id *UniqueID) { copy(id[20:24], []byte{0, 0, 0, 0}) }), "unspecified"},
		{"multicast", mod(func(id *UniqueID) { copy(id[20:24], []byte{224, 0, 0, 1}) }), "multicast"},
		{"zero secret", mod(func(id *UniqueID) { copy(id[32:64], make([]byte, 32)) }), "secret is all zero"},
	}
	for _, c := range cases {
		_, _, err := c.id.Decode()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "bootstrap: ") {
			t.Errorf("%s: got %v, want error containing %q", c.name, err, c.want)
		}
		if s := c.id.String(); !strings.Contains(s, "invalid") && !strings.Contains(s, "unique ID") {
			t.Errorf("%s: String() = %q", c.name, s)
		}
	}
	if _, err := newUniqueID(netip.MustParseAddrPort("0.0.0.0:5"), testSecret()); err == nil {
		t.Error("newUniqueID accepted an unspecified address")
	}
	if _, err := newUniqueID(netip.MustParseAddrPort("1.2.3.4:5"), [32]byte{}); err == nil {
		t.Error("newUniqueID accepted a zero secret")
	}
}

func TestDeriveSecret(t *testing.T) {
	if deriveSecret("a") == deriveSecret("b") || deriveSecret("a") != deriveSecret("a") {
		t.Fatal("deriveSecret is not a function of its input")
	}
}
