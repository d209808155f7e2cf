package channels

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/rdma"
)

// Buffer is a registered buffer and every rank's copy of it: Mems[r] is rank r's
// registration, Ptrs[r] its buffer as mapped here (Ptrs[own rank] is the local one; a
// peer reached by a network transport has no mapping, and its Ptrs entry is 0).
type Buffer struct {
	Ptrs  []device.Ptr
	Sizes []uint64
	Mems  []RegisteredMemory
}

// localMemory is a buffer this rank registered.
type localMemory struct {
	ptr  device.Ptr
	size uint64
	host unsafe.Pointer    // the buffer mapped into this process (host tokens), or nil
	ib   rdma.MemoryRegion // its InfiniBand registration, or nil
}

// registry numbers this rank's registrations: Ethernet messages name their destination
// by the number, and the receivers look it up while the mesh adds more (copy on write).
type registry struct {
	mu   sync.Mutex
	list atomic.Pointer[[]localMemory]
}

func (r *registry) add(l localMemory) uint32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var old []localMemory
	if cur := r.list.Load(); cur != nil {
		old = *cur
	}
	next := append(append(make([]localMemory, 0, len(old)+1), old...), l)
	r.list.Store(&next)
	return uint32(len(next) - 1)
}

func (r *registry) all() []localMemory {
	if cur := r.list.Load(); cur != nil {
		return *cur
	}
	return nil
}

func (r *registry) get(id uint32) (localMemory, bool) {
	list := r.all()
	if int64(id) >= int64(len(list)) {
		return localMemory{}, false
	}
	return list[id], true
}

// span returns the registered memory id's bytes [off, off+n) as a checked device address.
func (r *registry) span(id uint32, off, n uint64) (localMemory, error) {
	l, ok := r.get(id)
	if !ok {
		return l, fmt.Errorf("memory %d is not registered here (%d registrations)", id, len(r.all()))
	}
	if off > l.size || n > l.size-off {
		return l, fmt.Errorf("bytes [%d, +%d) overrun the %d-byte memory %d", off, n, l.size, id)
	}
	return l, nil
}

// uses reports whether any connection of the mesh uses transport t.
func (m *Mesh) uses(t Transport) bool { return m.offered&t != 0 }

// Register describes a whole local allocation for other ranks, with a section for every
// transport the mesh's connections use.
func (m *Mesh) Register(p device.Ptr, size uint64) (RegisteredMemory, error) {
	return m.register(localMemory{ptr: p, size: size})
}

func (m *Mesh) register(l localMemory) (RegisteredMemory, error) {
	rm := RegisteredMemory{Rank: m.Rank, Size: l.size, Ptr: l.ptr}
	if l.host == nil && (m.uses(TransportCUDAIPC) || m.NRanks == 1) {
		h, err := m.GPU.IPCGetHandle(l.ptr)
		if err != nil {
			return RegisteredMemory{}, fmt.Errorf("register %d bytes at %v on rank %d: %w", l.size, l.ptr, m.Rank, err)
		}
		rm.Transports |= TransportCUDAIPC
		rm.IPC.Handle = h
	}
	if m.uses(TransportIB) {
		mr, err := m.ib.register(m.GPU, l)
		if err != nil {
			return RegisteredMemory{}, fmt.Errorf("register %d bytes at %v on rank %d: %w", l.size, l.ptr, m.Rank, err)
		}
		l.ib = mr
		rm.Transports |= TransportIB
		rm.IB = IBMemory{Addr: ibAddr(l), RKey: mr.RKey()}
	}
	if m.uses(TransportEthernet) {
		rm.Transports |= TransportEthernet
	}
	rm.ID = m.reg.add(l)
	return rm, nil
}

// exchange allgathers one registration from every rank and checks them.
func (m *Mesh) exchange(mine RegisteredMemory) ([]RegisteredMemory, error) {
	blob, err := mine.MarshalBinary()
	if err != nil {
		return nil, err
	}
	all, err := m.Boot.AllGather(blob)
	if err != nil {
		return nil, fmt.Errorf("exchange registered memory: %w", err)
	}
	out := make([]RegisteredMemory, len(all))
	for r, blob := range all {
		if err := out[r].UnmarshalBinary(blob); err != nil {
			return nil, fmt.Errorf("registered memory of rank %d: %w", r, err)
		}
		if out[r].Rank != r {
			return nil, fmt.Errorf("registered memory in slot %d claims rank %d", r, out[r].Rank)
		}
	}
	out[m.Rank].Ptr = mine.Ptr
	return out, nil
}

// shareLocal registers local memory l and exchanges it with every rank: the buffer it
// returns has every rank's registration and size, and this rank's address only.
func (m *Mesh) shareLocal(l localMemory) (*Buffer, error) {
	mine, err := m.register(l)
	if err != nil {
		return nil, err
	}
	all, err := m.exchange(mine)
	if err != nil {
		return nil, err
	}
	b := &Buffer{Ptrs: make([]device.Ptr, m.NRanks), Sizes: make([]uint64, m.NRanks), Mems: all}
	for r, rm := range all {
		b.Sizes[r] = rm.Size
	}
	b.Ptrs[m.Rank] = l.ptr
	return b, nil
}

// Share registers a local allocation, exchanges it with every rank and maps the copies of
// the peers connected by CUDA IPC. Every rank calls it with its own buffer.
func (m *Mesh) Share(p device.Ptr, size uint64) (*Buffer, error) {
	b, err := m.shareLocal(localMemory{ptr: p, size: size})
	if err != nil {
		return nil, err
	}
	for r, rm := range b.Mems {
		if r == m.Rank || m.Conns[r].Transport() != TransportCUDAIPC {
			continue
		}
		if rm.Transports&TransportCUDAIPC == 0 {
			return nil, fmt.Errorf("registered memory of rank %d has no CUDA IPC handle", r)
		}
		q, err := m.GPU.IPCOpen(rm.IPC.Handle)
		if err != nil {
			return nil, fmt.Errorf("map %d-byte buffer of rank %d (GPU %s): %w", rm.Size, r, m.Endpoints[r].BusID, err)
		}
		m.opened = append(m.opened, q)
		b.Ptrs[r] = q.Add(rm.IPC.Offset)
	}
	return b, nil
}

// remoteRegion is how this rank's connection to peer p addresses p's memory rm, of
// which mapped is the CUDA IPC mapping here (if any).
func (m *Mesh) remoteRegion(p int, rm RegisteredMemory, mapped device.Ptr) Region {
	r := Region{Size: rm.Size, ID: rm.ID}
	switch m.Conns[p].Transport() {
	case TransportCUDAIPC:
		r.Base = mapped
	case TransportIB:
		r.Base, r.Key = device.Ptr(rm.IB.Addr), rm.IB.RKey
	}
	return r
}

// localRegion returns local memory [p, p+size) as a port channel's source. InfiniBand
// needs its key: the registration that holds it, or a new one. Host-resident memory
// (ShareHost) is sent from host memory (hostRegion).
func (m *Mesh) localRegion(p device.Ptr, size uint64) (Region, error) {
	if id, l, ok := m.hostResident(p, size); ok {
		return hostRegion(id, l, p, size), nil
	}
	r := Region{Base: p, Size: size}
	if !m.uses(TransportIB) {
		return r, nil
	}
	for id, l := range m.reg.all() {
		if l.ib != nil && l.host == nil && p >= l.ptr && uint64(p-l.ptr)+size <= l.size {
			r.ID, r.Key = uint32(id), l.ib.LKey()
			return r, nil
		}
	}
	mr, err := m.ib.register(m.GPU, localMemory{ptr: p, size: size})
	if err != nil {
		return r, fmt.Errorf("register port channel source (%d bytes at %v) on rank %d: %w", size, p, m.Rank, err)
	}
	r.ID, r.Key = m.reg.add(localMemory{ptr: p, size: size, ib: mr}), mr.LKey()
	return r, nil
}
