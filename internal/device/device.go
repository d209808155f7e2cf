package device

import (
	"fmt"
	"time"
	"unsafe"
)

// Ptr is a device address.
type Ptr uint64

// Add returns p advanced by off bytes.
func (p Ptr) Add(off uint64) Ptr { return p + Ptr(off) }

// String prints the address in hex.
func (p Ptr) String() string { return fmt.Sprintf("0x%x", uint64(p)) }

// IPCHandleSize is the size of a CUDA IPC memory handle.
const IPCHandleSize = 64

// IPCHandle names device memory so another process on the same host can map it.
type IPCHandle [IPCHandleSize]byte

// Stream, Event, Kernel and Graph are opaque handles owned by the GPU that made them.
type (
	// Stream is an ordered queue of device work.
	Stream uintptr
	// Event marks a point in a stream, for timing.
	Event uintptr
	// Kernel is a device function loaded from the embedded kernels.
	Kernel uintptr
	// Graph is an instantiated CUDA graph, ready to launch.
	Graph uintptr
)

// Info describes a GPU.
type Info struct {
	Ordinal     int    // device ordinal in this process
	Name        string // e.g. "NVIDIA H200"
	BusID       string // PCI bus id, e.g. "0000:00:06.0"
	SMs         int    // multiprocessor count
	Major       int    // compute capability
	Minor       int
	TotalMemory uint64
}

// DeviceConfig is the Go twin of handles.h's DeviceConfig, the settings every kernel module
// keeps in a device variable (channels' TestHandleLayout checks that the layouts match).
type DeviceConfig struct {
	TimeoutNs uint64 // a device wait that lasts longer records an error and gives up
	ErrorWord Ptr    // mapped host word where the first device error is recorded
	Rank      uint32
	NRanks    uint32
}

// Dim is a launch shape.
type Dim struct {
	Grid, Block, SharedMem int
}

// GPU is one process's view of its device. Every method returns an error that names the
// CUDA call that failed. A goroutine must call Bind before using the GPU (CUDA contexts are
// per OS thread).
type GPU interface {
	Info() Info
	Bind() error

	Alloc(bytes uint64) (Ptr, error)
	Free(p Ptr) error
	// AllocMapped returns pinned host memory that the device can also address.
	AllocMapped(bytes uint64) (host unsafe.Pointer, dev Ptr, err error)
	FreeMapped(host unsafe.Pointer) error
	// HostRegister pins host memory that this process mapped and maps it into the device.
	HostRegister(host unsafe.Pointer, bytes uint64) (Ptr, error)
	HostUnregister(host unsafe.Pointer) error
	MemInfo() (free, total uint64, err error)

	Memset(p Ptr, v byte, bytes uint64) error
	CopyToDevice(dst Ptr, src []byte) error
	CopyFromDevice(dst []byte, src Ptr) error

	IPCGetHandle(p Ptr) (IPCHandle, error)
	IPCOpen(h IPCHandle) (Ptr, error)
	IPCClose(p Ptr) error
	// CanAccessPeer says whether this GPU can map memory of the GPU with this PCI bus id.
	CanAccessPeer(busID string) (bool, error)

	NewStream() (Stream, error)
	DestroyStream(s Stream) error
	// Synchronize waits for the stream, at most timeout; it fails if the stream reports an
	// error or does not finish in time.
	Synchronize(s Stream, timeout time.Duration) error
	// StreamIdle reports whether everything queued on s has finished, without waiting.
	StreamIdle(s Stream) (bool, error)
	CopyAsync(dst, src Ptr, bytes uint64, s Stream) error
	MemsetAsync(p Ptr, v byte, bytes uint64, s Stream) error
	// WriteValue64Async stores v at dst once earlier work in s has completed.
	WriteValue64Async(dst Ptr, v uint64, s Stream) error

	Kernel(name string) (Kernel, error)
	// Launch runs k with 8-byte arguments (pointers, integers; narrower kernel parameters
	// read the low bytes).
	Launch(k Kernel, d Dim, s Stream, args ...uint64) error

	NewEvent() (Event, error)
	DestroyEvent(e Event) error
	Record(e Event, s Stream) error
	ElapsedMs(start, end Event) (float64, error)

	BeginCapture(s Stream) error
	EndCapture(s Stream) (Graph, error)
	LaunchGraph(g Graph, s Stream) error
	DestroyGraph(g Graph) error

	// SetDeviceConfig sets every module's DeviceConfig (kernels/include/mscclpp/handles.h).
	SetDeviceConfig(timeout time.Duration, errorWord Ptr, rank, nranks int) error

	Close() error
}
