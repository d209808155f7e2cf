package channels

import (
	"bytes"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

func TestEndpointRoundTrip(t *testing.T) {
	in := Endpoint{Rank: 3, Transports: TransportCUDAIPC | TransportEthernet, Pid: 4242, Device: 1, Sockets: 4, Chunk: 4 << 20, Nonce: 0x1234567890,
		Hostname: "node-7", HostID: "rack2-node7", BusID: "0000:00:07.0", GPUName: "NVIDIA H200", EthAddr: "10.0.0.7:40123"}
	b, err := in.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var out Endpoint
	if err := out.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if out != in {
		t.Fatalf("round trip: %+v, want %+v", out, in)
	}
	long := in
	long.Hostname = string(bytes.Repeat([]byte("x"), 300))
	if _, err := long.MarshalBinary(); err == nil {
		t.Fatal("a 300-byte hostname was accepted")
	}
}

func TestEndpointRejects(t *testing.T) {
	good, _ := Endpoint{Rank: 1, Transports: TransportCUDAIPC, Hostname: "h", HostID: "h", BusID: "b", GPUName: "g"}.MarshalBinary()
	cases := map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte{0, 0, 0, 0}, good[4:]...),
		"version":   append(append(append([]byte{}, good[:4]...), 9, 0), good[6:]...),
		"truncated": good[:len(good)-1],
		"trailing":  append(append([]byte{}, good...), 0),
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
		{"cudaipc", RegisteredMemory{Rank: 5, ID: 3, Size: 1 << 30, Transports: TransportCUDAIPC, IPC: IPCMemory{Handle: h, Offset: 256}}, 24 + 72},
		{"ethernet", RegisteredMemory{Rank: 1, ID: 9, Size: 4096, Transports: TransportEthernet}, 24},
		{"ib", RegisteredMemory{Rank: 2, ID: 0, Size: 64, Transports: TransportIB, IB: IBMemory{Addr: 0x7f0000001000, RKey: 0xbeef}}, 24 + 16},
		{"all", RegisteredMemory{Rank: 7, ID: 1, Size: 8, Transports: allTransports, IPC: IPCMemory{Handle: h}, IB: IBMemory{Addr: 64, RKey: 1}}, 24 + 72 + 16},
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
		if out != c.in { // local pointers do not travel
			t.Fatalf("%s: round trip: %+v, want %+v", c.name, out, c.in)
		}
	}
}

func TestRegisteredMemoryRejects(t *testing.T) {
	good, _ := RegisteredMemory{Rank: 2, Size: 64, Transports: TransportIB, IB: IBMemory{Addr: 64, RKey: 1}}.MarshalBinary()
	edit := func(at int, v ...byte) []byte {
		b := append([]byte{}, good...)
		copy(b[at:], v)
		return b
	}
	cases := map[string][]byte{
		"empty":          nil,
		"magic":          edit(0, 0),
		"version 1":      edit(4, 1, 0),
		"no transports":  edit(6, 0, 0),
		"unknown bit":    edit(6, 8|2, 0),
		"section absent": edit(6, 2|1, 0), // claims a CUDA IPC section it does not have
		"reserved":       edit(36, 1),
		"negative rank":  edit(8, 0xff, 0xff, 0xff, 0xff),
		"addr overflow":  edit(24, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
		"truncated":      good[:len(good)-1],
		"trailing":       append(append([]byte{}, good...), 0),
	}
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
	good, _ := Endpoint{Rank: 1, Transports: TransportCUDAIPC, Hostname: "h", HostID: "h", BusID: "b", GPUName: "g"}.MarshalBinary()
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
		{Rank: 2, Size: 4096, Transports: TransportCUDAIPC, IPC: IPCMemory{Handle: device.IPCHandle{1, 2, 3}}},
		{Rank: 1, ID: 4, Size: 64, Transports: TransportEthernet},
		{Rank: 3, ID: 2, Size: 64, Transports: allTransports, IB: IBMemory{Addr: 4096, RKey: 7}},
	} {
		good, _ := m.MarshalBinary()
		f.Add(good)
	}
	f.Add(make([]byte, memoryHeaderSize))
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
