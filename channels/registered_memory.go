package channels

import (
	"encoding/binary"
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// RegisteredMemory describes a buffer so that other ranks can reach it, with one section
// of data per transport it was registered with. The owner fills Ptr (its local address);
// Ptr does not travel.
type RegisteredMemory struct {
	Rank       int
	ID         uint32 // the owner's registration number: Ethernet messages name the buffer by it
	Size       uint64
	Transports Transport // the sections present
	IPC        IPCMemory // when Transports has TransportCUDAIPC
	IB         IBMemory  // when Transports has TransportIB
	Ptr        device.Ptr
}

// IPCMemory is the CUDA IPC section: the handle names the allocation that contains the
// buffer, which starts Offset bytes into it.
type IPCMemory struct {
	Handle device.IPCHandle
	Offset uint64
}

// IBMemory is the InfiniBand section: the buffer's address in the owner's process and the
// key that lets a peer's queue pair write it.
type IBMemory struct {
	Addr uint64
	RKey uint32
}

// Wire format, little endian:
//
//	magic u32, version u16, transports u16, rank u32, id u32, size u64
//	then, for each transport bit set from the lowest up, its section:
//	  cudaipc:  offset u64, handle [64]byte
//	  ib:       addr u64, rkey u32, reserved u32 (0)
//	  ethernet: nothing (the id and size are all a peer needs)
//
// Version 1 (before per-transport sections) had a fixed 88-byte layout; it is refused.
const (
	memoryMagic   = 0x4d42524d // "MBRM"
	memoryVersion = 2

	memoryHeaderSize = 4 + 2 + 2 + 4 + 4 + 8
	ipcSectionSize   = 8 + device.IPCHandleSize
	ibSectionSize    = 8 + 4 + 4
)

// WireSize returns the length of the serialised memory.
func (m RegisteredMemory) WireSize() int {
	n := memoryHeaderSize
	if m.Transports&TransportCUDAIPC != 0 {
		n += ipcSectionSize
	}
	if m.Transports&TransportIB != 0 {
		n += ibSectionSize
	}
	return n
}

// MarshalBinary encodes the memory for the bootstrap (without the local pointer).
func (m RegisteredMemory) MarshalBinary() ([]byte, error) {
	if m.Transports&^allTransports != 0 || m.Transports == 0 {
		return nil, fmt.Errorf("registered memory of rank %d: transports %v", m.Rank, m.Transports)
	}
	b := make([]byte, 0, m.WireSize())
	b = binary.LittleEndian.AppendUint32(b, memoryMagic)
	b = binary.LittleEndian.AppendUint16(b, memoryVersion)
	b = binary.LittleEndian.AppendUint16(b, uint16(m.Transports))
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Rank))
	b = binary.LittleEndian.AppendUint32(b, m.ID)
	b = binary.LittleEndian.AppendUint64(b, m.Size)
	if m.Transports&TransportCUDAIPC != 0 {
		b = binary.LittleEndian.AppendUint64(b, m.IPC.Offset)
		b = append(b, m.IPC.Handle[:]...)
	}
	if m.Transports&TransportIB != 0 {
		b = binary.LittleEndian.AppendUint64(b, m.IB.Addr)
		b = binary.LittleEndian.AppendUint32(b, m.IB.RKey)
		b = binary.LittleEndian.AppendUint32(b, 0)
	}
	return b, nil
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
	if m.Transports&TransportCUDAIPC != 0 {
		m.IPC.Offset = r.u64()
		copy(m.IPC.Handle[:], r.take(device.IPCHandleSize))
	}
	if m.Transports&TransportIB != 0 {
		m.IB.Addr = r.u64()
		m.IB.RKey = r.u32()
		if reserved := r.u32(); reserved != 0 && r.err == nil {
			return fmt.Errorf("registered memory: reserved field is %d, want 0", reserved)
		}
	}
	switch {
	case r.err != nil:
		return fmt.Errorf("registered memory: %w", r.err)
	case len(r.b) != 0:
		return fmt.Errorf("registered memory: %d trailing bytes", len(r.b))
	case m.Transports == 0 || m.Transports&^allTransports != 0:
		return fmt.Errorf("registered memory: transports %v", m.Transports)
	case m.Rank < 0:
		return fmt.Errorf("registered memory: negative rank %d", m.Rank)
	case m.IPC.Offset > m.IPC.Offset+m.Size:
		return fmt.Errorf("registered memory: offset %d + size %d overflows", m.IPC.Offset, m.Size)
	case m.IB.Addr > m.IB.Addr+m.Size:
		return fmt.Errorf("registered memory: address 0x%x + size %d overflows", m.IB.Addr, m.Size)
	}
	return nil
}
