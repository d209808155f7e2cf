package bootstrap

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"strings"
	"testing"
)

func TestFrameRoundTrip(t *testing.T) {
	cases := []frame{
		{typ: frameData, tag: 7, payload: []byte("hello")},
		{typ: frameData, tag: -3, payload: []byte{}},
		{typ: frameColl, tag: 1 << 40, payload: encodeColl(collAllGather, 3, []byte("x"))},
		{typ: frameBye, payload: []byte{}},
		{typ: frameReject, payload: encodeReject("no")},
	}
	var stream bytes.Buffer
	for _, f := range cases {
		if err := writeFrame(&stream, f.typ, f.tag, f.payload); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range cases {
		got, err := readFrame(&stream, maxFrameSize)
		if err != nil {
			t.Fatal(err)
		}
		if got.typ != want.typ || got.tag != want.tag || !bytes.Equal(got.payload, want.payload) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	}
	if _, err := readFrame(&stream, maxFrameSize); err != io.EOF {
		t.Errorf("at end: %v, want EOF", err)
	}
}

func TestFrameDecodeErrors(t *testing.T) {
	good := appendFrame(nil, frameData, 1, []byte("abc"))
	mod := func(i int, v byte) []byte { b := bytes.Clone(good); b[i] = v; return b }
	cases := []struct {
		name string
		in   []byte
		max  int
		want string
	}{
		{"empty", nil, 100, "EOF"},
		{"short header", good[:10], 100, "unexpected EOF"},
		{"magic", mod(0, 'X'), 100, "bad frame magic"},
		{"version", mod(2, 9), 100, "unsupported frame version"},
		{"type 0", mod(3, 0), 100, "unknown frame type"},
		{"type 99", mod(3, 99), 100, "unknown frame type"},
		{"too long", appendFrame(nil, frameData, 1, make([]byte, 101)), 100, "exceeds the limit"},
		{"huge length", append(encodeHeaderSlice(frameData, 0, 0)[:12], 0xff, 0xff, 0xff, 0xff), maxFrameSize, "exceeds the limit"},
		{"truncated payload", good[:len(good)-1], 100, "unexpected EOF"},
		{"tag on hello", appendFrame(nil, frameHello, 5, nil), 100, "non-zero tag"},
		{"bye with payload", appendFrame(nil, frameBye, 0, []byte{1}), 100, "bye frame with"},
	}
	for _, c := range cases {
		_, err := readFrame(bytes.NewReader(c.in), c.max)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := readFrame(bytes.NewReader(good[:10]), 100); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short header: %v", err)
	}
}

func encodeHeaderSlice(typ frameType, tag int64, n int) []byte {
	h := encodeHeader(typ, tag, n)
	return h[:]
}

func TestHelloRoundTripAndErrors(t *testing.T) {
	h := hello{secret: testSecret(), rank: 3, nranks: 8, listen: netip.MustParseAddrPort("10.0.0.9:4444")}
	b := encodeHello(h)
	got, err := decodeHello(b)
	if err != nil || got != h {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	mod := func(f func(b []byte)) []byte { c := bytes.Clone(b); f(c); return c }
	bad := map[string][]byte{
		"short":          b[:10],
		"long":           append(bytes.Clone(b), 0),
		"magic":          mod(func(b []byte) { b[0] = 0 }),
		"version":        mod(func(b []byte) { b[4] = 7 }),
		"reserved":       mod(func(b []byte) { b[70] = 1 }),
		"rank>=nranks":   mod(func(b []byte) { b[43] = 8 }),
		"nranks 0":       mod(func(b []byte) { b[44], b[45], b[46], b[47] = 0, 0, 0, 0 }),
		"nranks huge":    mod(func(b []byte) { b[44] = 0xff }),
		"zero port":      mod(func(b []byte) { b[64], b[65] = 0, 0 }),
		"unspecified ip": mod(func(b []byte) { copy(b[48:64], make([]byte, 16)) }),
	}
	for name, in := range bad {
		if _, err := decodeHello(in); err == nil {
			t.Errorf("%s: decodeHello accepted it", name)
		}
	}
}

func TestTableRejectColl(t *testing.T) {
	addrs := []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("[fd00::1]:2")}
	tb := encodeTable(addrs)
	if len(tb) != tableSize(2) {
		t.Fatal("tableSize mismatch")
	}
	got, err := decodeTable(tb, 2)
	if err != nil || got[0] != addrs[0] || got[1] != addrs[1] {
		t.Fatalf("table: %v %v", got, err)
	}
	if _, err := decodeTable(tb, 3); err == nil {
		t.Error("table with wrong nranks accepted")
	}
	if _, err := decodeTable(tb[:len(tb)-1], 2); err == nil {
		t.Error("short table accepted")
	}
	if _, err := decodeTable(nil, 1); err == nil {
		t.Error("empty table accepted")
	}
	if r, err := decodeReject(encodeReject(strings.Repeat("x", 5000))); err != nil || len(r) != maxRejectText {
		t.Errorf("reject truncation: %d %v", len(r), err)
	}
	if _, err := decodeReject([]byte{0xff, 0xfe}); err == nil {
		t.Error("non-UTF-8 reject accepted")
	}
	k, step, data, err := decodeColl(encodeColl(collBarrier, 9, []byte("d")))
	if err != nil || k != collBarrier || step != 9 || string(data) != "d" {
		t.Errorf("coll: %v %v %q %v", k, step, data, err)
	}
	if _, _, _, err := decodeColl([]byte{1}); err == nil {
		t.Error("short coll accepted")
	}
}
