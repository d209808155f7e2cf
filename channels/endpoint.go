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
)

// Endpoint is what a rank tells the others about itself before they connect.
type Endpoint struct {
	Rank int
	// Transports is the set this rank can use: those opened on use always, and those it
	// opened before the exchange (TransportInfo.Offer).
	Transports Transport
	Pid        int
	Device     int    // GPU ordinal in the owner's process
	Nonce      uint64 // random: a transport's handshake can quote it to prove whom it dials
	Hostname   string // the host's name, as the OS says
	HostID     string // ranks with the same HostID share a host (Hostname unless overridden)
	BusID      string // PCI bus id of the GPU
	GPUName    string
	// sections holds each transport's own bytes (EndpointFiller), by transport.
	sections map[Transport][]byte
}

// Section returns the bytes that transport t added to the endpoint, or nil.
func (e *Endpoint) Section(t Transport) []byte { return e.sections[t] }

// SetSection sets the bytes of transport t in the endpoint (at most 65535).
func (e *Endpoint) SetSection(t Transport, b []byte) {
	if e.sections == nil {
		e.sections = map[Transport][]byte{}
	}
	e.sections[t] = b
}

const (
	endpointMagic   = 0x4d424550 // "MBEP"
	endpointVersion = 3
	maxNameLen      = 255
	maxSectionLen   = 0xffff
)

// Wire format, little endian: magic u32, version u16, transports u16, rank u32, pid u32,
// device u32, nonce u64, then hostname, host id, bus id and GPU name (each a length byte
// and its bytes), then a section count u8 and, for each section in the order of the
// transports' bits, its transport u16, its length u16 and its bytes.

// strings returns the endpoint's variable-length fields in wire order.
func (e *Endpoint) strings() []*string {
	return []*string{&e.Hostname, &e.HostID, &e.BusID, &e.GPUName}
}

// check refuses transports that this program does not know and sections of transports
// the endpoint does not offer.
func (e *Endpoint) check() error {
	if all := registeredSet(); e.Transports&^all != 0 {
		return fmt.Errorf("transports %v (this program has %v)", e.Transports, all)
	}
	for t, b := range e.sections {
		if t&(t-1) != 0 || e.Transports&t == 0 || len(b) > maxSectionLen {
			return fmt.Errorf("a section of %d bytes for %v, which it does not offer", len(b), t)
		}
	}
	return nil
}

// MarshalBinary encodes the endpoint for the bootstrap.
func (e Endpoint) MarshalBinary() ([]byte, error) {
	if err := e.check(); err != nil {
		return nil, fmt.Errorf("endpoint of rank %d: %w", e.Rank, err)
	}
	b := make([]byte, 0, 64+len(e.Hostname)+len(e.HostID)+len(e.BusID)+len(e.GPUName))
	b = binary.LittleEndian.AppendUint32(b, endpointMagic)
	b = binary.LittleEndian.AppendUint16(b, endpointVersion)
	b = binary.LittleEndian.AppendUint16(b, uint16(e.Transports))
	b = binary.LittleEndian.AppendUint32(b, uint32(e.Rank))
	b = binary.LittleEndian.AppendUint32(b, uint32(e.Pid))
	b = binary.LittleEndian.AppendUint32(b, uint32(e.Device))
	b = binary.LittleEndian.AppendUint64(b, e.Nonce)
	for _, s := range e.strings() {
		if len(*s) > maxNameLen {
			return nil, fmt.Errorf("endpoint of rank %d: string of %d bytes is longer than %d", e.Rank, len(*s), maxNameLen)
		}
		b = append(b, byte(len(*s)))
		b = append(b, *s...)
	}
	return appendSections(b, e.sections), nil
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
	e.Nonce = r.u64()
	for _, s := range e.strings() {
		*s = r.str()
	}
	var err error
	if e.sections, err = readSections(&r); err != nil {
		return fmt.Errorf("endpoint: %w", err)
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
	if err := e.check(); err != nil {
		return fmt.Errorf("endpoint: %w", err)
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
