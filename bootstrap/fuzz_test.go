package bootstrap

import (
	"bytes"
	"net/netip"
	"testing"
)

func FuzzUniqueIDDecode(f *testing.F) {
	for _, a := range []string{"127.0.0.1:5000", "[fd00::1]:1"} {
		id, err := newUniqueID(netip.MustParseAddrPort(a), testSecret())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(id[:])
		bad := id
		bad[100] = 1
		f.Add(bad[:])
	}
	f.Add(make([]byte, UniqueIDSize))
	f.Add([]byte("MBBT"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var id UniqueID
		copy(id[:], data)
		_ = id.String()
		addr, secret, err := id.Decode()
		if err != nil {
			return
		}
		again, err := newUniqueID(addr, secret)
		if err != nil {
			t.Fatalf("decoded %s but cannot re-encode: %v", addr, err)
		}
		if again != id {
			t.Fatalf("re-encoding %s differs", addr)
		}
	})
}

func FuzzFrameDecode(f *testing.F) {
	f.Add(appendFrame(nil, frameData, 42, []byte("payload")))
	f.Add(appendFrame(nil, frameColl, 7, encodeColl(collAllGather, 1, []byte("x"))))
	f.Add(appendFrame(nil, frameTable, 0, encodeTable([]netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:9")})))
	f.Add(appendFrame(nil, frameReject, 0, encodeReject("go away")))
	f.Add(appendFrame(nil, frameBye, 0, nil))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Add([]byte{'M', 'B', 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := readFrame(bytes.NewReader(data), maxHandshakeFrame)
		if err != nil {
			return
		}
		enc := appendFrame(nil, fr.typ, fr.tag, fr.payload)
		if !bytes.Equal(enc, data[:len(enc)]) {
			t.Fatalf("re-encoding differs")
		}
		// The payload decoders must not panic either.
		decodeColl(fr.payload)
		decodeReject(fr.payload)
		decodeTable(fr.payload, 1)
		decodeTable(fr.payload, 3)
		decodeHello(fr.payload)
	})
}

func FuzzHelloDecode(f *testing.F) {
	f.Add(encodeHello(hello{secret: testSecret(), rank: 1, nranks: 4, listen: netip.MustParseAddrPort("127.0.0.1:4000")}))
	f.Add(encodeHello(hello{secret: testSecret(), rank: 0, nranks: 1, listen: netip.MustParseAddrPort("[::1]:1")}))
	f.Add(make([]byte, helloSize))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := decodeHello(data)
		if err != nil {
			return
		}
		if !bytes.Equal(encodeHello(h), data) {
			t.Fatalf("re-encoding %+v differs", h)
		}
	})
}

func FuzzParseAddr(f *testing.F) {
	for _, s := range []string{"", ":0", "127.0.0.1:5000", "[::1]:1", "eth0:10.0.0.1:5", "eth0:[fd00::1]:5", "eth0:5000", "a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := parseAddrSpec(s)
		if err != nil {
			return
		}
		if spec.IP.IsValid() && spec.Name != "" {
			t.Fatalf("%q: both IP and name", s)
		}
	})
}
