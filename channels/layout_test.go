package channels

import (
	"reflect"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/layout"
)

// TestHandleLayout checks every struct that handles.h shares with Go: same size, and every
// C field at the same offset and size as the Go field of the same (capitalised) name.
func TestHandleLayout(t *testing.T) {
	goTypes := map[string]reflect.Type{
		"DeviceSemaphoreHandle": reflect.TypeOf(DeviceSemaphoreHandle{}),
		"HostSemaphoreHandle":   reflect.TypeOf(HostSemaphoreHandle{}),
		"MemoryChannelHandle":   reflect.TypeOf(MemoryChannelHandle{}),
		"FifoHandle":            reflect.TypeOf(FifoHandle{}),
		"PortChannelHandle":     reflect.TypeOf(PortChannelHandle{}),
		"DeviceConfig":          reflect.TypeOf(device.DeviceConfig{}),
		"LaunchState":           reflect.TypeOf(LaunchState{}),
		"ProxyTrigger":          reflect.TypeOf(Trigger{}),
	}
	goName := map[string]string{"sem": "Sem", "timeoutNs": "TimeoutNs", "errorWord": "ErrorWord", "nranks": "NRanks", "id": "ID"}
	seen := map[string]int{}
	for _, f := range layout.Fields() {
		typ, ok := goTypes[f.Struct]
		if !ok {
			t.Errorf("C struct %s has no Go twin", f.Struct)
			continue
		}
		if f.Field == "" {
			if typ.Size() != f.Size {
				t.Errorf("%s: C size %d, Go size %d", f.Struct, f.Size, typ.Size())
			}
			continue
		}
		name := goName[f.Field]
		if name == "" {
			name = string(f.Field[0]-'a'+'A') + f.Field[1:]
		}
		gf, ok := typ.FieldByName(name)
		if !ok {
			t.Errorf("%s.%s has no Go field %s", f.Struct, f.Field, name)
			continue
		}
		if gf.Offset != f.Offset || gf.Type.Size() != f.Size {
			t.Errorf("%s.%s: C offset %d size %d, Go offset %d size %d", f.Struct, f.Field, f.Offset, f.Size, gf.Offset, gf.Type.Size())
		}
		seen[f.Struct]++
	}
	for name, typ := range goTypes {
		if seen[name] != typ.NumField() {
			t.Errorf("%s: C lists %d fields, Go has %d", name, seen[name], typ.NumField())
		}
	}
}

// TestTriggerMatchesC encodes triggers with the C helper and decodes them in Go.
func TestTriggerMatchesC(t *testing.T) {
	cases := [][5]uint64{
		{TriggerData, 0, 0, 0, 0},
		{TriggerData | TriggerFlag, 7, 4096, 1 << 20, 123456789},
		{TriggerSync, 65535, mask36, mask36, MaxTriggerBytes},
		{TriggerData | TriggerFlag | TriggerSync, 300, 1<<36 - 1, 12345, MaxTriggerBytes},
		{TriggerData, 1, 0, 0, 256 << 20},
	}
	for _, c := range cases {
		fst, snd := layout.Trigger(uint32(c[0]), uint32(c[1]), c[2], c[3], c[4])
		want := MakeTrigger(uint32(c[0]), uint32(c[1]), c[2], c[3], c[4])
		if fst != want.Fst || snd != want.Snd {
			t.Errorf("trigger %v: C {%x %x}, Go {%x %x}", c, fst, snd, want.Fst, want.Snd)
		}
	}
}

func TestDeviceErrorMatchesC(t *testing.T) {
	w := layout.DeviceError(DevErrFifoFlush, 5, 17, 131)
	e, ok := DecodeDeviceError(w)
	if !ok || e != (DeviceError{Code: DevErrFifoFlush, Peer: 5, Channel: 17, Block: 131}) {
		t.Fatalf("decoded %+v (ok %v)", e, ok)
	}
	if _, ok := DecodeDeviceError(0); ok {
		t.Fatal("0 decoded as an error")
	}
	for code, want := range map[uint32]string{
		DevErrSemaphoreWait: "semaphore wait on channel 17 with rank 5 timed out (block 131)",
		DevErrPacketRead:    "waiting for LL packets on channel 17 from rank 5 timed out (block 131)",
		99:                  "unknown device error 99 (channel 17, rank 5, block 131)",
	} {
		e, _ := DecodeDeviceError(layout.DeviceError(code, 5, 17, 131))
		if e.Error() != want {
			t.Errorf("code %d: %q, want %q", code, e.Error(), want)
		}
	}
}
