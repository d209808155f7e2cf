package channels

import (
	"bytes"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

func TestEndpointRoundTrip(t *testing.T) {
	in := Endpoint{Rank: 3, Transport: TransportCudaIpc, Pid: 4242, Device: 1, Hostname: "node-7", BusID: "0000:00:07.0", GPUName: "NVIDIA H200"}
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
	good, _ := Endpoint{Rank: 1, Transport: TransportCudaIpc, Hostname: "h", BusID: "b", GPUName: "g"}.MarshalBinary()
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
	in := RegisteredMemory{Rank: 5, Size: 1 << 30, Transports: TransportCudaIpc, Offset: 256, Ptr: 0x7f00}
	for i := range in.Handle {
		in.Handle[i] = byte(i * 3)
	}
	b, err := in.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != MemoryWireSize {
		t.Fatalf("wire size %d, want %d", len(b), MemoryWireSize)
	}
	var out RegisteredMemory
	if err := out.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	in.Ptr = 0 // local pointers do not travel
	if out != in {
		t.Fatalf("round trip: %+v, want %+v", out, in)
	}
	bad := append([]byte{}, b...)
	bad[12] = 1 // reserved
	if err := out.UnmarshalBinary(bad); err == nil {
		t.Fatal("non-zero reserved field accepted")
	}
	if err := out.UnmarshalBinary(b[:10]); err == nil {
		t.Fatal("short buffer accepted")
	}
}

func FuzzEndpointDecode(f *testing.F) {
	good, _ := Endpoint{Rank: 1, Transport: TransportCudaIpc, Hostname: "h", BusID: "b", GPUName: "g"}.MarshalBinary()
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
	good, _ := RegisteredMemory{Rank: 2, Size: 4096, Transports: TransportCudaIpc, Handle: device.IpcHandle{1, 2, 3}}.MarshalBinary()
	f.Add(good)
	f.Add(make([]byte, MemoryWireSize))
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
