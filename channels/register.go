package channels

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Buffer is a registered buffer and every rank's copy of it: Mems[r] is rank r's
// registration, Ptrs[r] its buffer as mapped here (Ptrs[own rank] is the local one; a
// peer reached by a network transport has no mapping, and its Ptrs entry is 0).
type Buffer struct {
	Ptrs  []device.Ptr
	Sizes []uint64
	Mems  []RegisteredMemory
}

// LocalMemory is a buffer this rank registered.
type LocalMemory struct {
	Ptr  device.Ptr                 // the buffer's device address
	Size uint64                     // its length in bytes
	Host unsafe.Pointer             // the buffer mapped into this process (host-resident memory), or nil
	regs map[Transport]Registration // its registrations with MemoryRegistrars
}

// Addr is the buffer's start as a network card addresses it: its host address when it is
// host-resident, else its device address.
func (l LocalMemory) Addr() uint64 {
	if l.Host != nil {
		return uint64(uintptr(l.Host))
	}
	return uint64(l.Ptr)
}

// Memories looks up this rank's registrations by number: a network transport's receivers
// find a message's destination so, while the mesh goes on registering.
type Memories interface {
	// Span returns registration id, after checking that its bytes [off, off+n) exist.
	Span(id uint32, off, n uint64) (LocalMemory, error)
}

// registry numbers this rank's registrations: a network transport's messages can name
// their destination by the number, and the receivers look it up while the mesh adds more (copy on write).
type registry struct {
	mu   sync.Mutex
	list atomic.Pointer[[]LocalMemory]
}

func (r *registry) add(l LocalMemory) uint32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var old []LocalMemory
	if cur := r.list.Load(); cur != nil {
		old = *cur
	}
	next := append(append(make([]LocalMemory, 0, len(old)+1), old...), l)
	r.list.Store(&next)
	return uint32(len(next) - 1)
}

func (r *registry) all() []LocalMemory {
	if cur := r.list.Load(); cur != nil {
		return *cur
	}
	return nil
}

func (r *registry) get(id uint32) (LocalMemory, bool) {
	list := r.all()
	if int64(id) >= int64(len(list)) {
		return LocalMemory{}, false
	}
	return list[id], true
}

// Span returns the registered memory id, whose bytes [off, off+n) it has checked.
func (r *registry) Span(id uint32, off, n uint64) (LocalMemory, error) {
	l, ok := r.get(id)
	if !ok {
		return l, fmt.Errorf("memory %d is not registered here (%d registrations)", id, len(r.all()))
	}
	if off > l.Size || n > l.Size-off {
		return l, fmt.Errorf("bytes [%d, +%d) overrun the %d-byte memory %d", off, n, l.Size, id)
	}
	return l, nil
}

// uses reports whether any connection of the mesh uses transport t.
func (m *Mesh) uses(t Transport) bool { return m.offered&t != 0 }

// maps reports whether this rank maps peer p's memory (its transport maps).
func (m *Mesh) maps(p int) bool { return m.Conns[p] != nil && m.Conns[p].Transport().Maps() }

// mapsAny reports whether some connection of this rank maps its peer's memory.
func (m *Mesh) mapsAny() bool {
	for _, info := range Registered() {
		if info.Maps && m.uses(info.Transport) {
			return true
		}
	}
	return false
}

// Register describes a whole local allocation for other ranks, with what every transport
// the mesh's connections use needs of it.
func (m *Mesh) Register(p device.Ptr, size uint64) (RegisteredMemory, error) {
	return m.register(LocalMemory{Ptr: p, Size: size})
}

func (m *Mesh) register(l LocalMemory) (_ RegisteredMemory, err error) {
	rm := RegisteredMemory{Rank: m.Rank, Size: l.Size, Ptr: l.Ptr}
	fail := func(err error) error {
		for _, r := range l.regs {
			r.Close()
		}
		return fmt.Errorf("register %d bytes at %v on rank %d: %w", l.Size, l.Ptr, m.Rank, err)
	}
	if l.Host == nil && (m.mapsAny() || m.NRanks == 1) {
		h, err := m.GPU.IPCGetHandle(l.Ptr)
		if err != nil {
			return RegisteredMemory{}, fail(err)
		}
		rm.IPC = &IPCMemory{Handle: h}
	}
	for _, info := range Registered() {
		t := info.Transport
		switch {
		case !m.uses(t):
			continue
		case info.Maps:
			if rm.IPC != nil {
				rm.Transports |= t
			}
			continue
		}
		rm.Transports |= t
		r, ok := m.nets[t].(MemoryRegistrar)
		if !ok {
			continue
		}
		reg, err := r.RegisterMemory(l)
		if err != nil {
			return RegisteredMemory{}, fail(err)
		}
		if l.regs == nil {
			l.regs = map[Transport]Registration{}
		}
		l.regs[t] = reg
		rm.SetSection(t, reg.Section())
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
func (m *Mesh) shareLocal(l LocalMemory) (*Buffer, error) {
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
	b.Ptrs[m.Rank] = l.Ptr
	return b, nil
}

// Share registers a local allocation, exchanges it with every rank and maps the copies of
// the peers connected by CUDA IPC. Every rank calls it with its own buffer.
func (m *Mesh) Share(p device.Ptr, size uint64) (*Buffer, error) {
	b, err := m.shareLocal(LocalMemory{Ptr: p, Size: size})
	if err != nil {
		return nil, err
	}
	for r, rm := range b.Mems {
		if r == m.Rank || !m.maps(r) {
			continue
		}
		if rm.IPC == nil {
			return nil, fmt.Errorf("registered memory of rank %d has no IPC handle to map", r)
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
// which mapped is the mapping here (if p's transport maps).
func (m *Mesh) remoteRegion(p int, rm RegisteredMemory, mapped device.Ptr) (Region, error) {
	r := Region{Size: rm.Size, ID: rm.ID}
	t := m.Conns[p].Transport()
	if t.Maps() {
		if mapped == 0 {
			return r, unmapped(p, rm, t)
		}
		r.Base = mapped
		return r, nil
	}
	if reg, ok := m.nets[t].(MemoryRegistrar); ok {
		rr, err := reg.RemoteRegion(rm.Section(t), rm.Size)
		if err != nil {
			return r, fmt.Errorf("registered memory %d of rank %d over %v: %w", rm.ID, p, t, err)
		}
		r.Base, r.Key = rr.Base, rr.Key
	}
	return r, nil
}

// localRegion returns local memory [p, p+size) as the source of a port channel over
// transport t. A MemoryRegistrar's connection needs its key: from a registration that
// holds the memory, or a new one. Host-resident memory (ShareHost) is sent from host
// memory (hostRegion).
func (m *Mesh) localRegion(p device.Ptr, size uint64, t Transport) (Region, error) {
	if id, l, ok := m.hostResident(p, size); ok {
		return hostRegion(id, l, p, size, t), nil
	}
	r := Region{Base: p, Size: size}
	reg, ok := m.nets[t].(MemoryRegistrar)
	if !ok {
		return r, nil
	}
	for id, l := range m.reg.all() {
		if x := l.regs[t]; x != nil && l.Host == nil && p >= l.Ptr && uint64(p-l.Ptr)+size <= l.Size {
			r.ID, r.Key = uint32(id), x.Key()
			return r, nil
		}
	}
	x, err := reg.RegisterMemory(LocalMemory{Ptr: p, Size: size})
	if err != nil {
		return r, fmt.Errorf("register port channel source (%d bytes at %v) on rank %d: %w", size, p, m.Rank, err)
	}
	r.ID, r.Key = m.reg.add(LocalMemory{Ptr: p, Size: size, regs: map[Transport]Registration{t: x}}), x.Key()
	return r, nil
}

// unmapped is the error for a channel over t, which maps memory, into rank p's memory rm
// that is not mapped here: host-resident memory (ShareHost), which t cannot map.
func unmapped(p int, rm RegisteredMemory, t Transport) error {
	return fmt.Errorf("registered memory %d of rank %d (%d bytes) is not mapped here: %s cannot map host-resident memory of another process", rm.ID, p, rm.Size, t.Title())
}
