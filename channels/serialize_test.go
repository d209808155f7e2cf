package channels_test

import (
	"bytes"
	"reflect"
	"testing"

	. "github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ib"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

const allTransports = cudaipc.Transport | ib.Transport | ethernet.Transport

// ibSection is an InfiniBand registration section: addr u64, rkey u32.
func ibSection(addr uint64, rkey uint32) []byte {
	b := make([]byte, 12)
	for i := range 8 {
		b[i] = byte(addr >> (8 * i))
	}
	for i := range 4 {
		b[8+i] = byte(rkey >> (8 * i))
	}
	return b
}

// withSection returns m with transport t's section set to b.
func withSection(m RegisteredMemory, t Transport, b []byte) RegisteredMemory {
	m.SetSection(t, b)
	return m
}

func TestEndpointRoundTrip(t *testing.T) {
	in := Endpoint{Rank: 3, Transports: cudaipc.Transport | ethernet.Transport, Pid: 4242, Device: 1, Nonce: 0x1234567890,
		Hostname: "node-7", HostID: "rack2-node7", BusID: "0000:00:07.0", GPUName: "NVIDIA H200"}
	in.SetSection(ethernet.Transport, []byte("a transport's own bytes: 10.0.0.7:40123"))
	b, err := in.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var out Endpoint
	if err := out.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip: %+v, want %+v", out, in)
	}
	foreign := in
	foreign.SetSection(ib.Transport, []byte{1}) // a section of a transport it does not offer
	if _, err := foreign.MarshalBinary(); err == nil {
		t.Fatal("a section of a transport the endpoint does not offer was accepted")
	}
	long := in
	long.Hostname = string(bytes.Repeat([]byte("x"), 300))
	if _, err := long.MarshalBinary(); err == nil {
		t.Fatal("a 300-byte hostname was accepted")
	}
}

func TestEndpointRejects(t *testing.T) {
	good, _ := Endpoint{Rank: 1, Transports: cudaipc.Transport, Hostname: "h", HostID: "h", BusID: "b", GPUName: "g"}.MarshalBinary()
	cases := map[string][]byte{
		"empty":             nil,
		"magic":             append([]byte{0, 0, 0, 0}, good[4:]...),
		"version":           append(append(append([]byte{}, good[:4]...), 9, 0), good[6:]...),
		"truncated":         good[:len(good)-1],
		"trailing":          append(append([]byte{}, good...), 0),
		"unknown transport": append(append(append([]byte{}, good[:6]...), 0, 0x80), good[8:]...),
	}
	for name, b := range cases {
		var e Endpoint
		if err := e.UnmarshalBinary(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestRegisteredMemoryRoundTrip(t *testing.T) {
	var h device.IPCHandle
	for i := range h {
		h[i] = byte(i * 3)
	}
	cases := []struct {
		name string
		in   RegisteredMemory
		size int
	}{
		{"cudaipc", RegisteredMemory{Rank: 5, ID: 3, Size: 1 << 30, Transports: cudaipc.Transport, IPC: &IPCMemory{Handle: h, Offset: 256}}, 26 + 72},
		{"ethernet", RegisteredMemory{Rank: 1, ID: 9, Size: 4096, Transports: ethernet.Transport}, 26},
		{"ib", withSection(RegisteredMemory{Rank: 2, ID: 0, Size: 64, Transports: ib.Transport}, ib.Transport, ibSection(0x7f0000001000, 0xbeef)), 26 + 4 + 12},
		{"all", withSection(RegisteredMemory{Rank: 7, ID: 1, Size: 8, Transports: allTransports, IPC: &IPCMemory{Handle: h}}, ib.Transport, ibSection(64, 1)), 26 + 72 + 4 + 12},
	}
	for _, c := range cases {
		in := c.in
		in.Ptr = 0x7f00
		b, err := in.MarshalBinary()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(b) != c.size || in.WireSize() != c.size {
			t.Fatalf("%s: wire size %d (WireSize %d), want %d", c.name, len(b), in.WireSize(), c.size)
		}
		var out RegisteredMemory
		if err := out.UnmarshalBinary(b); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(out, c.in) { // local pointers do not travel
			t.Fatalf("%s: round trip: %+v, want %+v", c.name, out, c.in)
		}
	}
}

func TestRegisteredMemoryRejects(t *testing.T) {
	good, _ := withSection(RegisteredMemory{Rank: 2, Size: 64, Transports: ib.Transport}, ib.Transport, ibSection(64, 1)).MarshalBinary()
	edit := func(at int, v ...byte) []byte {
		b := append([]byte{}, good...)
		copy(b[at:], v)
		return b
	}
	cases := map[string][]byte{
		"empty":           nil,
		"magic":           edit(0, 0),
		"version 2":       edit(4, 2, 0),
		"no transports":   edit(6, 0, 0),
		"unknown bit":     edit(6, 0, 0x80),
		"IPC flag 2":      edit(24, 2),
		"section absent":  edit(24, 1),   // claims an IPC section it does not have
		"foreign section": edit(6, 4, 0), // an InfiniBand section of memory registered for Ethernet only
		"count past end":  edit(25, 2),
		"negative rank":   edit(8, 0xff, 0xff, 0xff, 0xff),
		"truncated":       good[:len(good)-1],
		"trailing":        append(append([]byte{}, good...), 0),
	}
	two, _ := withSection(withSection(RegisteredMemory{Rank: 2, Size: 64, Transports: ib.Transport | ethernet.Transport}, ib.Transport, ibSection(64, 1)),
		ethernet.Transport, []byte{7}).MarshalBinary()
	if err := new(RegisteredMemory).UnmarshalBinary(two); err != nil {
		t.Fatalf("two sections in order: %v", err)
	}
	cases["sections out of order"] = append(append(append([]byte{}, two[:26]...), two[42:47]...), two[26:42]...)
	for name, b := range cases {
		var m RegisteredMemory
		if err := m.UnmarshalBinary(b); err == nil {
			t.Errorf("%s: accepted %+v", name, m)
		}
	}
	if _, err := (RegisteredMemory{Rank: 1, Size: 8}).MarshalBinary(); err == nil {
		t.Error("memory registered with no transport was encoded")
	}
}

func FuzzEndpointDecode(f *testing.F) {
	good, _ := Endpoint{Rank: 1, Transports: cudaipc.Transport, Hostname: "h", HostID: "h", BusID: "b", GPUName: "g"}.MarshalBinary()
	f.Add(good)
	f.Add([]byte{})
	f.Add([]byte{0x50, 0x45, 0x42, 0x4d, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var e Endpoint
		if err := e.UnmarshalBinary(b); err != nil {
			return
		}
		again, err := e.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded endpoint does not encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("decode/encode changed the bytes")
		}
	})
}

func FuzzRegisteredMemoryDecode(f *testing.F) {
	for _, m := range []RegisteredMemory{
		{Rank: 2, Size: 4096, Transports: cudaipc.Transport, IPC: &IPCMemory{Handle: device.IPCHandle{1, 2, 3}}},
		{Rank: 1, ID: 4, Size: 64, Transports: ethernet.Transport},
		withSection(RegisteredMemory{Rank: 3, ID: 2, Size: 64, Transports: allTransports}, ib.Transport, ibSection(4096, 7)),
	} {
		good, _ := m.MarshalBinary()
		f.Add(good)
	}
	f.Add(make([]byte, 26))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m RegisteredMemory
		if err := m.UnmarshalBinary(b); err != nil {
			return
		}
		again, _ := m.MarshalBinary()
		if !bytes.Equal(again, b) {
			t.Fatalf("decode/encode changed the bytes")
		}
	})
}

func FuzzTriggerDecode(f *testing.F) {
	f.Add(uint64(0), uint64(0))
	t0 := MakeTrigger(TriggerData|TriggerFlag, 9, 100, 200, 300)
	f.Add(t0.Fst, t0.Snd)
	f.Fuzz(func(t *testing.T, fst, snd uint64) {
		tr := Trigger{Fst: fst, Snd: snd}
		if !tr.Valid() {
			return
		}
		again := MakeTrigger(tr.Type(), tr.Channel(), tr.DstOffset(), tr.SrcOffset(), tr.Size())
		// Every bit of a valid trigger is a field, so re-encoding reproduces it.
		if again != tr {
			t.Fatalf("%v re-encodes as {%x %x}, was {%x %x}", tr, again.Fst, again.Snd, fst, snd)
		}
	})
}
