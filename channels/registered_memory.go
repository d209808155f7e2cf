package channels

import (
	"encoding/binary"
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// RegisteredMemory describes a device buffer so that other ranks can map it. The owner
// fills Ptr (its local address); the serialised form carries the IPC handle instead.
type RegisteredMemory struct {
	Rank       int
	Size       uint64
	Transports Transport
	Handle     device.IpcHandle // names the allocation that contains the buffer
	Offset     uint64           // buffer start within that allocation
	Ptr        device.Ptr       // valid in the owner's process only
}

const (
	memoryMagic   = 0x4d42524d // "MBRM"
	memoryVersion = 1
	// MemoryWireSize is the size of a serialised RegisteredMemory.
	MemoryWireSize = 4 + 2 + 2 + 4 + 4 + 8 + 8 + device.IpcHandleSize
)

// MarshalBinary encodes the memory for the bootstrap (without the local pointer).
func (m RegisteredMemory) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, MemoryWireSize)
	b = binary.LittleEndian.AppendUint32(b, memoryMagic)
	b = binary.LittleEndian.AppendUint16(b, memoryVersion)
	b = binary.LittleEndian.AppendUint16(b, uint16(m.Transports))
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Rank))
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint64(b, m.Size)
	b = binary.LittleEndian.AppendUint64(b, m.Offset)
	b = append(b, m.Handle[:]...)
	return b, nil
}

// UnmarshalBinary decodes a serialised RegisteredMemory; Ptr is left zero.
func (m *RegisteredMemory) UnmarshalBinary(b []byte) error {
	if len(b) != MemoryWireSize {
		return fmt.Errorf("registered memory: %d bytes, want %d", len(b), MemoryWireSize)
	}
	r := reader{b: b}
	if v := r.u32(); v != memoryMagic {
		return fmt.Errorf("registered memory: bad magic 0x%x", v)
	}
	if v := r.u16(); v != memoryVersion {
		return fmt.Errorf("registered memory: version %d, want %d", v, memoryVersion)
	}
	m.Transports = Transport(r.u16())
	m.Rank = int(int32(r.u32()))
	if reserved := r.u32(); reserved != 0 {
		return fmt.Errorf("registered memory: reserved field is %d, want 0", reserved)
	}
	m.Size = r.u64()
	m.Offset = r.u64()
	copy(m.Handle[:], r.take(device.IpcHandleSize))
	m.Ptr = 0
	if m.Rank < 0 {
		return fmt.Errorf("registered memory: negative rank %d", m.Rank)
	}
	if m.Offset > m.Offset+m.Size {
		return fmt.Errorf("registered memory: offset %d + size %d overflows", m.Offset, m.Size)
	}
	return r.err
}
