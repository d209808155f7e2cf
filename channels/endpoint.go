// Package channels is the MSCCL++ primitive layer in Go: endpoints and connections between
// ranks, registered memory, semaphores, memory channels (GPU threads copy directly over
// NVLink) and port channels (GPU threads push triggers; a CPU proxy drives the copy engine).
//
// Host halves live here; device halves live in kernels/include/mscclpp/*_device.cuh and
// receive the *Handle structs of handles.go. The package talks to the GPU only through
// device.GPU, so all host logic (FIFO protocol, serialisation, handle layout, mesh set-up
// with a fake GPU) is tested without a GPU.
package channels

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Transport says how two ranks move data.
type Transport uint16

// Transports.
const (
	TransportCudaIpc Transport = 1 // NVLink or PCIe peer-to-peer between GPUs of one host
	TransportIB      Transport = 2 // InfiniBand (not built yet)
)

// String names the transport.
func (t Transport) String() string {
	switch t {
	case TransportCudaIpc:
		return "cudaipc"
	case TransportIB:
		return "ib"
	}
	return fmt.Sprintf("transport(%d)", uint16(t))
}

// ParseTransport reads the --transport flag: "nvlink" (or "cudaipc") and "ib".
func ParseTransport(s string) (Transport, error) {
	switch s {
	case "nvlink", "cudaipc":
		return TransportCudaIpc, nil
	case "ib":
		return TransportIB, nil
	}
	return 0, fmt.Errorf("unknown transport %q (want nvlink or ib)", s)
}

// ErrIBNotBuilt is returned for --transport ib.
var ErrIBNotBuilt = errors.New("the InfiniBand transport is not built yet: use --transport nvlink (CUDA IPC) on one host")

// Endpoint is what a rank tells the others about itself before they connect.
type Endpoint struct {
	Rank      int
	Transport Transport
	Pid       int
	Device    int    // GPU ordinal in the owner's process
	Hostname  string // ranks with the same hostname can use CUDA IPC
	BusID     string // PCI bus id of the GPU
	GPUName   string
}

const (
	endpointMagic   = 0x4d424550 // "MBEP"
	endpointVersion = 1
	maxNameLen      = 255
)

// MarshalBinary encodes the endpoint for the bootstrap.
func (e Endpoint) MarshalBinary() ([]byte, error) {
	for _, s := range []string{e.Hostname, e.BusID, e.GPUName} {
		if len(s) > maxNameLen {
			return nil, fmt.Errorf("endpoint of rank %d: string of %d bytes is longer than %d", e.Rank, len(s), maxNameLen)
		}
	}
	b := make([]byte, 0, 32+len(e.Hostname)+len(e.BusID)+len(e.GPUName))
	b = binary.LittleEndian.AppendUint32(b, endpointMagic)
	b = binary.LittleEndian.AppendUint16(b, endpointVersion)
	b = binary.LittleEndian.AppendUint16(b, uint16(e.Transport))
	b = binary.LittleEndian.AppendUint32(b, uint32(e.Rank))
	b = binary.LittleEndian.AppendUint32(b, uint32(e.Pid))
	b = binary.LittleEndian.AppendUint32(b, uint32(e.Device))
	for _, s := range []string{e.Hostname, e.BusID, e.GPUName} {
		b = append(b, byte(len(s)))
		b = append(b, s...)
	}
	return b, nil
}

// UnmarshalBinary decodes an endpoint; it rejects anything malformed.
func (e *Endpoint) UnmarshalBinary(b []byte) error {
	r := reader{b: b}
	if m := r.u32(); m != endpointMagic {
		return fmt.Errorf("endpoint: bad magic 0x%x", m)
	}
	if v := r.u16(); v != endpointVersion {
		return fmt.Errorf("endpoint: version %d, want %d", v, endpointVersion)
	}
	e.Transport = Transport(r.u16())
	e.Rank = int(int32(r.u32()))
	e.Pid = int(int32(r.u32()))
	e.Device = int(int32(r.u32()))
	e.Hostname, e.BusID, e.GPUName = r.str(), r.str(), r.str()
	if r.err != nil {
		return fmt.Errorf("endpoint: %w", r.err)
	}
	if len(r.b) != 0 {
		return fmt.Errorf("endpoint: %d trailing bytes", len(r.b))
	}
	if e.Rank < 0 || e.Device < 0 {
		return fmt.Errorf("endpoint: negative rank %d or device %d", e.Rank, e.Device)
	}
	return nil
}

// reader decodes little-endian fields and remembers the first short read.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return make([]byte, n)
	}
	if len(r.b) < n {
		r.err = fmt.Errorf("truncated: need %d more bytes, have %d", n, len(r.b))
		r.b = nil
		return make([]byte, n)
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u16() uint16 { return binary.LittleEndian.Uint16(r.take(2)) }
func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *reader) str() string {
	n := int(r.take(1)[0])
	return string(r.take(n))
}
