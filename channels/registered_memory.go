package channels

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// RegisteredMemory describes a buffer so that other ranks can reach it: its CUDA IPC
// handle when ranks that map each other's memory need it (TransportInfo.Maps), and one
// section per transport whose MemoryRegistrar registered it. The owner fills Ptr (its
// local address); Ptr does not travel.
type RegisteredMemory struct {
	Rank       int
	ID         uint32 // the owner's registration number: a transport's messages can name the buffer by it
	Size       uint64
	Transports Transport  // the transports the owner's connections reach it by
	IPC        *IPCMemory // the handle that maps it, or nil
	Ptr        device.Ptr
	sections   map[Transport][]byte
}

// IPCMemory is the mapping section: the handle names the allocation that contains the
// buffer, which starts Offset bytes into it.
type IPCMemory struct {
	Handle device.IPCHandle
	Offset uint64
}

// Section returns the bytes that transport t's registration gives peers, or nil.
func (m RegisteredMemory) Section(t Transport) []byte { return m.sections[t] }

// SetSection sets the bytes of transport t (at most 65535).
func (m *RegisteredMemory) SetSection(t Transport, b []byte) {
	if m.sections == nil {
		m.sections = map[Transport][]byte{}
	}
	m.sections[t] = b
}

// Wire format, little endian:
//
//	magic u32, version u16, transports u16, rank u32, id u32, size u64, has-IPC u8
//	then, if has-IPC is 1: offset u64, handle [64]byte
//	then a section count u8 and, for each section in the order of the transports' bits,
//	its transport u16, its length u16 and its bytes.
//
// Versions 1 and 2 (fixed sections of the transports they knew) are refused.
const (
	memoryMagic   = 0x4d42524d // "MBRM"
	memoryVersion = 3

	memoryHeaderSize = 4 + 2 + 2 + 4 + 4 + 8 + 1 + 1
	ipcSectionSize   = 8 + device.IPCHandleSize
)

// WireSize returns the length of the serialised memory.
func (m RegisteredMemory) WireSize() int {
	n := memoryHeaderSize
	if m.IPC != nil {
		n += ipcSectionSize
	}
	for _, b := range m.sections {
		n += 4 + len(b)
	}
	return n
}

// check refuses what no peer could use.
func (m RegisteredMemory) check() error {
	if all := registeredSet(); m.Transports&^all != 0 || (m.Transports == 0 && m.IPC == nil) {
		return fmt.Errorf("transports %v (this program has %v)", m.Transports, all)
	}
	for t, b := range m.sections {
		if t&(t-1) != 0 || m.Transports&t == 0 || len(b) > maxSectionLen {
			return fmt.Errorf("a section of %d bytes for %v, which it is not registered for", len(b), t)
		}
	}
	return nil
}

// MarshalBinary encodes the memory for the bootstrap (without the local pointer).
func (m RegisteredMemory) MarshalBinary() ([]byte, error) {
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("registered memory of rank %d: %w", m.Rank, err)
	}
	b := make([]byte, 0, m.WireSize())
	b = binary.LittleEndian.AppendUint32(b, memoryMagic)
	b = binary.LittleEndian.AppendUint16(b, memoryVersion)
	b = binary.LittleEndian.AppendUint16(b, uint16(m.Transports))
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Rank))
	b = binary.LittleEndian.AppendUint32(b, m.ID)
	b = binary.LittleEndian.AppendUint64(b, m.Size)
	if m.IPC != nil {
		b = append(b, 1)
		b = binary.LittleEndian.AppendUint64(b, m.IPC.Offset)
		b = append(b, m.IPC.Handle[:]...)
	} else {
		b = append(b, 0)
	}
	return appendSections(b, m.sections), nil
}

// UnmarshalBinary decodes a serialised RegisteredMemory; Ptr is left zero.
func (m *RegisteredMemory) UnmarshalBinary(b []byte) error {
	r := reader{b: b}
	if v := r.u32(); v != memoryMagic {
		return fmt.Errorf("registered memory: bad magic 0x%x", v)
	}
	if v := r.u16(); v != memoryVersion {
		return fmt.Errorf("registered memory: version %d, want %d (do all ranks run the same mscclpp-bench?)", v, memoryVersion)
	}
	*m = RegisteredMemory{}
	m.Transports = Transport(r.u16())
	m.Rank = int(int32(r.u32()))
	m.ID = r.u32()
	m.Size = r.u64()
	switch has := r.take(1)[0]; {
	case has == 1:
		m.IPC = &IPCMemory{Offset: r.u64()}
		copy(m.IPC.Handle[:], r.take(device.IPCHandleSize))
	case has != 0 && r.err == nil:
		return fmt.Errorf("registered memory: IPC flag %d, want 0 or 1", has)
	}
	var err error
	if m.sections, err = readSections(&r); err != nil {
		return fmt.Errorf("registered memory: %w", err)
	}
	switch {
	case r.err != nil:
		return fmt.Errorf("registered memory: %w", r.err)
	case len(r.b) != 0:
		return fmt.Errorf("registered memory: %d trailing bytes", len(r.b))
	case m.Rank < 0:
		return fmt.Errorf("registered memory: negative rank %d", m.Rank)
	case m.IPC != nil && m.IPC.Offset > m.IPC.Offset+m.Size:
		return fmt.Errorf("registered memory: offset %d + size %d overflows", m.IPC.Offset, m.Size)
	}
	if err := m.check(); err != nil {
		return fmt.Errorf("registered memory: %w", err)
	}
	return nil
}

// appendSections appends a section count and the sections, in the order of their
// transports' bits.
func appendSections(b []byte, sections map[Transport][]byte) []byte {
	ts := make([]Transport, 0, len(sections))
	for t := range sections {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	b = append(b, byte(len(ts)))
	for _, t := range ts {
		b = binary.LittleEndian.AppendUint16(b, uint16(t))
		b = binary.LittleEndian.AppendUint16(b, uint16(len(sections[t])))
		b = append(b, sections[t]...)
	}
	return b
}

// readSections reads what appendSections wrote, and refuses sections out of order (or
// twice), which appendSections never writes.
func readSections(r *reader) (map[Transport][]byte, error) {
	var out map[Transport][]byte
	var last Transport
	for i, n := 0, int(r.take(1)[0]); i < n && r.err == nil; i++ {
		t := Transport(r.u16())
		b := r.take(int(r.u16()))
		if t <= last && r.err == nil {
			return nil, fmt.Errorf("section of %v after that of %v", t, last)
		}
		last = t
		if out == nil {
			out = map[Transport][]byte{}
		}
		out[t] = append([]byte{}, b...)
	}
	return out, nil
}
