package channelstest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/rdma"
)

// IBFabric is an in-memory InfiniBand subnet standing in for libibverbs: HCAs, memory
// regions and reliable-connected queue pairs. A posted RDMA write or atomic is carried out
// at once, in order, against the registered memory on the other side, with the checks an
// HCA makes (keys, bounds, queue pair state, send queue depth); a failed request completes
// with an error status and puts the queue pair in the error state, as on hardware.
type IBFabric struct {
	Space *MemSpace // device addresses (1<<60 and up) resolve here; others are host pointers

	mu      sync.Mutex
	nextLID uint16
	nextQPN uint32
	nextKey uint32
	qps     map[uint32]*FakeQP
	mrs     map[uint32]*FakeMR
	ops     map[string]int // posted work requests by kind
}

// NewIBFabric returns an empty fabric whose HCAs resolve device addresses in space.
func NewIBFabric(space *MemSpace) *IBFabric {
	return &IBFabric{Space: space, qps: map[uint32]*FakeQP{}, mrs: map[uint32]*FakeMR{}, ops: map[string]int{}}
}

// FakeVerbs opens HCAs on the fabric; missing stands for a host without one.
type FakeVerbs struct {
	F       *IBFabric
	Atomics bool
	Missing bool
}

// Open implements rdma.Verbs.
func (v FakeVerbs) Open(name string) (rdma.Device, error) {
	if v.Missing {
		return nil, errors.New("libibverbs found no InfiniBand device")
	}
	v.F.mu.Lock()
	defer v.F.mu.Unlock()
	v.F.nextLID++
	return &FakeHCA{f: v.F, port: rdma.Port{LID: v.F.nextLID, MTU: 5, Atomics: v.Atomics}}, nil
}

// FakeHCA is an HCA of an IBFabric.
type FakeHCA struct {
	f      *IBFabric
	port   rdma.Port
	closed bool
	open   int // memory regions and queue pairs not yet closed
}

// FakeMR is a memory region registered with a FakeHCA.
type FakeMR struct {
	hca  *FakeHCA
	key  uint32
	addr uint64
	mem  []byte
}

// LKey implements rdma.MemoryRegion.
func (m *FakeMR) LKey() uint32 { return m.key }

// RKey implements rdma.MemoryRegion.
func (m *FakeMR) RKey() uint32 { return m.key }

// Close implements rdma.MemoryRegion.
func (m *FakeMR) Close() error {
	f := m.hca.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mrs[m.key] != m {
		return fmt.Errorf("memory region %d closed twice", m.key)
	}
	delete(f.mrs, m.key)
	m.hca.open--
	return nil
}

// Port implements rdma.Device.
func (h *FakeHCA) Port() rdma.Port { return h.port }

// Register implements rdma.Device.
func (h *FakeHCA) Register(addr, size uint64, fd int, off uint64) (rdma.MemoryRegion, error) {
	var mem []byte
	if addr >= 1<<60 {
		mem = h.f.Space.Bytes(device.Ptr(addr), size)
	} else {
		// A host address the mesh registered: memory it keeps alive (a mapped file, or a
		// buffer HostBuffer allocated and the region holds).
		mem = unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&addr))), size)
	}
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	h.f.nextKey++
	m := &FakeMR{hca: h, key: h.f.nextKey, addr: addr, mem: mem}
	h.f.mrs[m.key] = m
	h.open++
	return m, nil
}

// HostBuffer implements rdma.Device.
func (h *FakeHCA) HostBuffer(n int) ([]byte, rdma.MemoryRegion, error) {
	b := make([]byte, n)
	mr, err := h.Register(uint64(uintptr(unsafe.Pointer(&b[0]))), uint64(n), -1, 0)
	return b, mr, err
}

// NewQueuePair implements rdma.Device.
func (h *FakeHCA) NewQueuePair(depth int) (rdma.QueuePair, error) {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	h.f.nextQPN++
	q := &FakeQP{hca: h, qpn: h.f.nextQPN, depth: depth}
	h.f.qps[q.qpn] = q
	h.open++
	return q, nil
}

// Close implements rdma.Device.
func (h *FakeHCA) Close() error {
	if h.open != 0 {
		return fmt.Errorf("HCA closed with %d memory regions or queue pairs still open", h.open)
	}
	h.closed = true
	return nil
}

// FakeQP is a reliable-connected queue pair of a FakeHCA.
type FakeQP struct {
	hca        *FakeHCA
	qpn        uint32
	depth      int
	remote     *FakeQP
	psn, rpsn  uint32
	broken     bool
	mu         sync.Mutex
	done       []rdma.Completion
	inflight   int
	closed     bool
	remoteLID  uint16
	remoteQPN  uint32
	connected  bool
	remotePort rdma.Port
}

// Number implements rdma.QueuePair.
func (q *FakeQP) Number() uint32 { return q.qpn }

// Connect implements rdma.QueuePair.
func (q *FakeQP) Connect(local, remote rdma.Port, rqpn, lpsn, rpsn uint32) error {
	q.hca.f.mu.Lock()
	defer q.hca.f.mu.Unlock()
	r := q.hca.f.qps[rqpn]
	if r == nil || r.hca.port.LID != remote.LID {
		return fmt.Errorf("no queue pair %d at LID %d", rqpn, remote.LID)
	}
	q.remote, q.psn, q.rpsn, q.connected, q.remotePort = r, lpsn, rpsn, true, remote
	return nil
}

// resolve finds memory [addr, addr+n) in the region with key on hca.
func (f *IBFabric) resolve(hca *FakeHCA, key uint32, addr, n uint64) ([]byte, bool) {
	m := f.mrs[key]
	if m == nil || m.hca != hca || addr < m.addr || addr-m.addr+n > uint64(len(m.mem)) {
		return nil, false
	}
	return m.mem[addr-m.addr:][:n], true
}

// post checks what any work request needs and runs op, recording its completion.
func (q *FakeQP) post(kind string, id uint64, op func(f *IBFabric) (int, string)) error {
	f := q.hca.f
	f.mu.Lock()
	defer f.mu.Unlock()
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.connected || q.remote.rpsn != q.psn || q.remote.remote != q {
		return errors.New("queue pair is not ready to send (not connected to a peer that connected back)")
	}
	if q.inflight >= q.depth {
		return fmt.Errorf("send queue full (%d work requests)", q.depth)
	}
	q.inflight++
	f.ops[kind]++
	status, msg := 5, "work request flushed" // IBV_WC_WR_FLUSH_ERR
	if !q.broken {
		if status, msg = op(f); status != 0 {
			q.broken = true
		}
	}
	q.done = append(q.done, rdma.Completion{ID: id, Status: status, Err: msg})
	return nil
}

// PostWrite implements rdma.QueuePair.
func (q *FakeQP) PostWrite(id, laddr uint64, lkey uint32, n, raddr uint64, rkey uint32) error {
	return q.post("write", id, func(f *IBFabric) (int, string) {
		src, ok := f.resolve(q.hca, lkey, laddr, n)
		if !ok {
			return 8, "local protection error" // IBV_WC_LOC_PROT_ERR
		}
		dst, ok := f.resolve(q.remote.hca, rkey, raddr, n)
		if !ok {
			return 10, "remote access error" // IBV_WC_REM_ACCESS_ERR
		}
		if n == 8 && raddr%8 == 0 {
			// An aligned 8-byte write lands whole, as a token's update must.
			atomic.StoreUint64((*uint64)(unsafe.Pointer(&dst[0])), binary.LittleEndian.Uint64(src))
		} else {
			copy(dst, src)
		}
		return 0, ""
	})
}

// PostFetchAdd implements rdma.QueuePair.
func (q *FakeQP) PostFetchAdd(id, laddr uint64, lkey uint32, raddr uint64, rkey uint32, add uint64) error {
	return q.post("fetch-add", id, func(f *IBFabric) (int, string) {
		if !q.hca.port.Atomics || !q.remotePort.Atomics {
			return 9, "remote invalid request (no atomics)" // IBV_WC_REM_INV_REQ_ERR
		}
		res, ok := f.resolve(q.hca, lkey, laddr, 8)
		if !ok {
			return 8, "local protection error"
		}
		dst, ok := f.resolve(q.remote.hca, rkey, raddr, 8)
		if !ok || raddr%8 != 0 {
			return 10, "remote access error"
		}
		old := atomic.AddUint64((*uint64)(unsafe.Pointer(&dst[0])), add) - add
		binary.LittleEndian.PutUint64(res, old)
		return 0, ""
	})
}

// Poll implements rdma.QueuePair.
func (q *FakeQP) Poll(out []rdma.Completion) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := copy(out, q.done)
	q.done = q.done[n:]
	q.inflight -= n
	return n, nil
}

// Close implements rdma.QueuePair.
func (q *FakeQP) Close() error {
	f := q.hca.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if q.closed {
		return errors.New("queue pair closed twice")
	}
	q.closed = true
	delete(f.qps, q.qpn)
	q.hca.open--
	return nil
}

// Count returns how many work requests of kind were posted on the fabric.
func (f *IBFabric) Count(kind string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ops[kind]
}
