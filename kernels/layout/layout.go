// Package layout reports, from C, the size and field offsets of the structs in
// kernels/include/mscclpp/handles.h, and runs its C helpers, so Go tests can check that
// the Go twins of those structs (channels/handles.go, internal/device) match them exactly. It compiles
// the header with the host C compiler; no CUDA toolkit or GPU is needed.
package layout

/*
#cgo CFLAGS: -I${SRCDIR}/../include
#include <stddef.h>
#include "mscclpp/handles.h"

#define F(S, f) { #S, #f, offsetof(S, f), sizeof(((S*)0)->f) }
#define T(S)    { #S, "", 0, sizeof(S) }
typedef struct { const char* s; const char* f; size_t off; size_t size; } field;
static const field fields[] = {
	T(DeviceSemaphoreHandle), F(DeviceSemaphoreHandle, inbound), F(DeviceSemaphoreHandle, remoteInbound),
	F(DeviceSemaphoreHandle, expected),
	T(HostSemaphoreHandle), F(HostSemaphoreHandle, inbound), F(HostSemaphoreHandle, expected),
	T(MemoryChannelHandle), F(MemoryChannelHandle, sem), F(MemoryChannelHandle, remote),
	F(MemoryChannelHandle, local), F(MemoryChannelHandle, peer), F(MemoryChannelHandle, index),
	T(FifoHandle), F(FifoHandle, triggers), F(FifoHandle, head), F(FifoHandle, tail), F(FifoHandle, tailCache),
	F(FifoHandle, size), F(FifoHandle, reserved),
	T(PortChannelHandle), F(PortChannelHandle, sem), F(PortChannelHandle, fifo), F(PortChannelHandle, id),
	F(PortChannelHandle, peer),
	T(DeviceConfig), F(DeviceConfig, timeoutNs), F(DeviceConfig, errorWord), F(DeviceConfig, rank),
	F(DeviceConfig, nranks),
	T(LaunchState), F(LaunchState, launches), F(LaunchState, arrived), F(LaunchState, go), F(LaunchState, done),
	T(ProxyTrigger), F(ProxyTrigger, fst), F(ProxyTrigger, snd),
};
static int nfields(void) { return sizeof(fields) / sizeof(fields[0]); }
static field fieldAt(int i) { return fields[i]; }
static void trigger(uint32_t type, uint32_t ch, uint64_t dst, uint64_t src, uint64_t size, uint64_t* out) {
	ProxyTrigger t = makeTrigger(type, ch, dst, src, size);
	out[0] = t.fst;
	out[1] = t.snd;
}
static uint64_t deviceError(uint32_t code, uint32_t peer, uint32_t ch, uint32_t block) {
	return makeDeviceError(code, peer, ch, block);
}
*/
import "C"

// Field is one struct member as C lays it out. A row with an empty Field gives the size of
// the whole struct.
type Field struct {
	Struct, Field string
	Offset, Size  uintptr
}

// Fields lists every struct and field that handles.h shares with Go.
func Fields() []Field {
	n := int(C.nfields())
	out := make([]Field, n)
	for i := 0; i < n; i++ {
		f := C.fieldAt(C.int(i))
		out[i] = Field{C.GoString(f.s), C.GoString(f.f), uintptr(f.off), uintptr(f.size)}
	}
	return out
}

// Trigger encodes a proxy trigger with handles.h's makeTrigger.
func Trigger(typ, channel uint32, dstOffset, srcOffset, size uint64) (fst, snd uint64) {
	var out [2]C.uint64_t
	C.trigger(C.uint32_t(typ), C.uint32_t(channel), C.uint64_t(dstOffset), C.uint64_t(srcOffset), C.uint64_t(size), &out[0])
	return uint64(out[0]), uint64(out[1])
}

// DeviceError encodes a device error word with handles.h's makeDeviceError.
func DeviceError(code, peer, channel, block uint32) uint64 {
	return uint64(C.deviceError(C.uint32_t(code), C.uint32_t(peer), C.uint32_t(channel), C.uint32_t(block)))
}
