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
	"fmt"
	"strings"
)

// Transport says how two ranks move data. The values are bits, so that a set of
// transports (what a rank offers, what a registered memory can be reached by) is one value.
type Transport uint16

// Transports.
const (
	TransportCUDAIPC  Transport = 1 // NVLink or PCIe peer-to-peer between GPUs of one host
	TransportIB       Transport = 2 // InfiniBand RDMA (channels/ib)
	TransportEthernet Transport = 4 // TCP sockets, staged through host memory (channels/ethernet)

	allTransports = TransportCUDAIPC | TransportIB | TransportEthernet
)

// String names the transport, or the set of transports joined by "+".
func (t Transport) String() string {
	var names []string
	for _, x := range []struct {
		t    Transport
		name string
	}{{TransportCUDAIPC, "cudaipc"}, {TransportIB, "ib"}, {TransportEthernet, "ethernet"}} {
		if t&x.t != 0 {
			names = append(names, x.name)
			t &^= x.t
		}
	}
	if t != 0 || len(names) == 0 {
		names = append(names, fmt.Sprintf("transport(%d)", uint16(t)))
	}
	return strings.Join(names, "+")
}

// Endpoint is what a rank tells the others about itself before they connect.
type Endpoint struct {
	Rank int
	// Transports is the set this rank can use: CUDA IPC always, Ethernet when it listens
	// for data sockets, IB when it has a usable HCA port.
	Transports Transport
	Pid        int
	Device     int    // GPU ordinal in the owner's process
	Sockets    int    // Ethernet: data sockets it opens per peer
	Chunk      uint64 // Ethernet: the largest piece it receives in one message
	Nonce      uint64 // random: a data socket's hello must quote it
	Hostname   string // the host's name, as the OS says
	HostID     string // ranks with the same HostID share a host (Hostname unless overridden)
	BusID      string // PCI bus id of the GPU
	GPUName    string
	EthAddr    string // Ethernet: "ip:port" of its data listener, or ""
}

const (
	endpointMagic   = 0x4d424550 // "MBEP"
	endpointVersion = 2
	maxNameLen      = 255
)

// strings returns the endpoint's variable-length fields in wire order.
func (e *Endpoint) strings() []*string {
	return []*string{&e.Hostname, &e.HostID, &e.BusID, &e.GPUName, &e.EthAddr}
}

// MarshalBinary encodes the endpoint for the bootstrap.
func (e Endpoint) MarshalBinary() ([]byte, error) {
	if e.Transports&^allTransports != 0 || e.Sockets < 0 || e.Sockets > 0xffff {
		return nil, fmt.Errorf("endpoint of rank %d: transports %v, %d sockets", e.Rank, e.Transports, e.Sockets)
	}
	b := make([]byte, 0, 64+len(e.Hostname)+len(e.HostID)+len(e.BusID)+len(e.GPUName)+len(e.EthAddr))
	b = binary.LittleEndian.AppendUint32(b, endpointMagic)
	b = binary.LittleEndian.AppendUint16(b, endpointVersion)
	b = binary.LittleEndian.AppendUint16(b, uint16(e.Transports))
	b = binary.LittleEndian.AppendUint32(b, uint32(e.Rank))
	b = binary.LittleEndian.AppendUint32(b, uint32(e.Pid))
	b = binary.LittleEndian.AppendUint32(b, uint32(e.Device))
	b = binary.LittleEndian.AppendUint32(b, uint32(e.Sockets))
	b = binary.LittleEndian.AppendUint64(b, e.Chunk)
	b = binary.LittleEndian.AppendUint64(b, e.Nonce)
	for _, s := range e.strings() {
		if len(*s) > maxNameLen {
			return nil, fmt.Errorf("endpoint of rank %d: string of %d bytes is longer than %d", e.Rank, len(*s), maxNameLen)
		}
		b = append(b, byte(len(*s)))
		b = append(b, *s...)
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
	e.Transports = Transport(r.u16())
	e.Rank = int(int32(r.u32()))
	e.Pid = int(int32(r.u32()))
	e.Device = int(int32(r.u32()))
	e.Sockets = int(int32(r.u32()))
	e.Chunk = r.u64()
	e.Nonce = r.u64()
	for _, s := range e.strings() {
		*s = r.str()
	}
	if r.err != nil {
		return fmt.Errorf("endpoint: %w", r.err)
	}
	if len(r.b) != 0 {
		return fmt.Errorf("endpoint: %d trailing bytes", len(r.b))
	}
	if e.Rank < 0 || e.Device < 0 {
		return fmt.Errorf("endpoint: negative rank %d or device %d", e.Rank, e.Device)
	}
	if e.Transports&^allTransports != 0 || e.Sockets < 0 || e.Sockets > 0xffff {
		return fmt.Errorf("endpoint: transports %v, %d sockets", e.Transports, e.Sockets)
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
