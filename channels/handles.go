package channels

import (
	"fmt"
	"unsafe"
)

// The Go twins of kernels/include/mscclpp/handles.h (DeviceConfig's is device.DeviceConfig).
// Pointers are device addresses stored as uint64. TestHandleLayout compares every size and
// offset with the C side.

// DeviceSemaphoreHandle is the device view of a device-to-device semaphore.
type DeviceSemaphoreHandle struct {
	Inbound       uint64 // local token the peer adds to
	RemoteInbound uint64 // the peer's token we add to (IPC-mapped)
	Expected      uint64 // local count of signals consumed
}

// HostSemaphoreHandle is the device view of a semaphore that a peer's proxy signals.
type HostSemaphoreHandle struct {
	Inbound  uint64
	Expected uint64
}

// MemoryChannelHandle is what a kernel receives for one memory channel.
type MemoryChannelHandle struct {
	Sem    DeviceSemaphoreHandle
	Remote uint64 // peer's buffer, mapped here
	Local  uint64 // local buffer
	Peer   uint32
	Index  uint32
}

// FifoHandle is the device view of the proxy FIFO.
type FifoHandle struct {
	Triggers  uint64
	Head      uint64
	Tail      uint64
	TailCache uint64
	Size      uint32
	Reserved  uint32
}

// PortChannelHandle is what a kernel receives for one port channel.
type PortChannelHandle struct {
	Sem  HostSemaphoreHandle
	Fifo FifoHandle
	ID   uint32
	Peer uint32
}

// LaunchState is the cross-launch state of one collective algorithm instance: a launch
// counter and barrier counters that its kernels keep in device memory (zeroed at set-up).
type LaunchState struct {
	Launches uint32 // completed launches
	Arrived  uint32 // blocks that finished this launch
	Go       uint32 // launch number whose start barrier has passed
	Done     uint32 // blocks past their main work
}

// Trigger is one 128-bit FIFO entry.
type Trigger struct {
	Fst, Snd uint64
}

// Trigger types (bit flags), as in handles.h.
const (
	TriggerData = 1 // copy Size bytes
	TriggerFlag = 2 // then signal the peer
	TriggerSync = 4 // then wait until the copies are done

	triggerValid = uint64(1) << 63 // in both words: a trigger is taken once both halves arrived
	mask36       = uint64(1)<<36 - 1
	// MaxTriggerBytes is the largest copy one trigger carries (27 size bits in Fst, 8 in
	// Snd); PortChannel splits larger ones (kernels/include/mscclpp/handles.h).
	MaxTriggerBytes = uint64(1)<<35 - 1
)

// MakeTrigger encodes a trigger exactly as the device does.
func MakeTrigger(typ uint32, channel uint32, dstOffset, srcOffset, size uint64) Trigger {
	return Trigger{
		Fst: srcOffset&mask36 | (size&(1<<27-1))<<36 | triggerValid,
		Snd: dstOffset&mask36 | ((size>>27)&0xff)<<36 | uint64(channel&0xffff)<<44 | uint64(typ&7)<<60 | triggerValid,
	}
}

// Valid reports whether both words have the valid bit set (an empty slot is zero).
func (t Trigger) Valid() bool { return t.Fst&t.Snd&triggerValid != 0 }

// Type returns the trigger's type bits.
func (t Trigger) Type() uint32 { return uint32(t.Snd>>60) & 7 }

// Channel returns the port channel id.
func (t Trigger) Channel() uint32 { return uint32(t.Snd>>44) & 0xffff }

// SrcOffset returns the source offset in bytes.
func (t Trigger) SrcOffset() uint64 { return t.Fst & mask36 }

// DstOffset returns the destination offset in bytes.
func (t Trigger) DstOffset() uint64 { return t.Snd & mask36 }

// Size returns the number of bytes to copy.
func (t Trigger) Size() uint64 { return (t.Fst>>36)&(1<<27-1) | ((t.Snd>>36)&0xff)<<27 }

// String describes the trigger for logs and errors.
func (t Trigger) String() string {
	return fmt.Sprintf("trigger{type %d, channel %d, dst +%d, src +%d, %d bytes}", t.Type(), t.Channel(), t.DstOffset(), t.SrcOffset(), t.Size())
}

// handleBytes returns the memory of a handle struct as bytes, ready to copy to the device.
// The Go layout equals the C layout (TestHandleLayout).
func handleBytes[T any](h *T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(h)), unsafe.Sizeof(*h))
}

// HandlesBytes packs a slice of handles back to back, as a C array of them.
func HandlesBytes[T any](hs []T) []byte {
	if len(hs) == 0 {
		return nil
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	out := make([]byte, 0, size*len(hs))
	for i := range hs {
		out = append(out, handleBytes(&hs[i])...)
	}
	return out
}

// Device error codes, as in handles.h.
const (
	DevErrSemaphoreWait = 1
	DevErrFifoPush      = 2
	DevErrFifoFlush     = 3
	DevErrPacketRead    = 4
	DevErrBadArgument   = 5
	DevErrProxy         = 6
)

// DeviceError is a decoded device error word.
type DeviceError struct {
	Code, Peer, Channel, Block uint32
}

// DecodeDeviceError splits an error word; ok is false for 0 (no error).
func DecodeDeviceError(w uint64) (DeviceError, bool) {
	if w == 0 {
		return DeviceError{}, false
	}
	return DeviceError{
		Code:    uint32(w & 0xff),
		Peer:    uint32(w>>8) & 0xffff,
		Channel: uint32(w>>24) & 0xffff,
		Block:   uint32(w>>40) & 0xffffff,
	}, true
}

// Error describes what timed out and with whom.
func (e DeviceError) Error() string {
	what := map[uint32]string{
		DevErrSemaphoreWait: "semaphore wait on channel %d with rank %d timed out",
		DevErrFifoPush:      "proxy FIFO push on port channel %d to rank %d timed out (FIFO stayed full)",
		DevErrFifoFlush:     "proxy flush on port channel %d to rank %d timed out",
		DevErrPacketRead:    "waiting for LL packets on channel %d from rank %d timed out",
		DevErrBadArgument:   "kernel argument rejected on channel %d (rank %d)",
	}[e.Code]
	if e.Code == DevErrProxy {
		return fmt.Sprintf("the proxy failed on port channel %d; device waits were stopped", e.Channel)
	}
	if what == "" {
		return fmt.Sprintf("unknown device error %d (channel %d, rank %d, block %d)", e.Code, e.Channel, e.Peer, e.Block)
	}
	return fmt.Sprintf(what+" (block %d)", e.Channel, e.Peer, e.Block)
}
