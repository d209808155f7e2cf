// Package channelstest holds the test helpers of channels and of its transports: a
// stand-in GPU with real memory and late, ordered streams (MemGPU), an in-memory
// InfiniBand fabric (NewIBFabric), a port channel driven from the CPU as a GPU thread
// drives it (CPUPort), a FIFO in Go memory (HostFifo), and meshes of in-process ranks that
// exchange checked data (Standin). It needs no GPU.
package channelstest

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// MemSpace is device memory for stand-in GPUs: fake device addresses (from 1<<60 up, so
// they never look like host pointers) that resolve to real bytes. Ranks of one process
// share a space, so a CUDA IPC "mapping" is the owner's address itself.
type MemSpace struct {
	mu      sync.Mutex
	next    device.Ptr
	regions []MemRegion // sorted by base
}

// MemRegion is one allocation of a MemSpace: its device address and its bytes.
type MemRegion struct {
	base device.Ptr
	b    []byte
}

// NewMemSpace returns an empty space, whose addresses start at 1<<60.
func NewMemSpace() *MemSpace { return &MemSpace{next: 1 << 60} }

// add maps b at a new device address.
func (s *MemSpace) add(b []byte) device.Ptr {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.next
	s.next += device.Ptr((uint64(len(b)) + 4096 + 255) &^ 255)
	s.regions = append(s.regions, MemRegion{p, b})
	return p
}

func (s *MemSpace) remove(p device.Ptr) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.regions {
		if r.base == p {
			s.regions = append(s.regions[:i], s.regions[i+1:]...)
			return true
		}
	}
	return false
}

// Bytes returns device memory [p, p+n); it panics on an address nothing maps, which is
// the stand-in's segmentation fault.
func (s *MemSpace) Bytes(p device.Ptr, n uint64) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := sort.Search(len(s.regions), func(i int) bool { return s.regions[i].base > p }) - 1
	if i < 0 || uint64(p-s.regions[i].base)+n > uint64(len(s.regions[i].b)) {
		panic(fmt.Sprintf("stand-in GPU: %d bytes at %v are not device memory", n, p))
	}
	off := uint64(p - s.regions[i].base)
	return s.regions[i].b[off : off+n]
}

// MemGPU is a stand-in device.GPU with real memory (the mesh tests' GPU). Streams run on goroutines of their
// own, in order and a little late, as a GPU would: code that forgets to wait for a copy
// reads stale bytes.
type MemGPU struct {
	device.GPU // what tests do not expect panics (nil interface)
	rank       int
	Space      *MemSpace
	NoPeer     bool // CanAccessPeer says no
	// Prompt runs copies and writes at once on the caller (every stream always idle), for
	// measuring the transports' own costs (channels/ethernet's loopback_bench_test.go).
	Prompt bool

	mu         sync.Mutex
	streams    map[device.Stream]*MemStream
	nextStream device.Stream
	allocs     map[device.Ptr]bool
	mapped     map[unsafe.Pointer]device.Ptr
	opened     map[device.Ptr]bool // IPCOpen'ed and not closed
	StreamOps  atomic.Int64        // copies and writes queued on its streams
}

// MemStream is a stream of a MemGPU: a goroutine that runs its operations in order.
type MemStream struct {
	ops     chan MemOp
	pending atomic.Int64
	done    chan struct{}
}

// NewMemGPU returns rank's stand-in GPU, allocating in space.
func NewMemGPU(rank int, space *MemSpace) *MemGPU {
	return &MemGPU{rank: rank, Space: space, streams: map[device.Stream]*MemStream{},
		allocs: map[device.Ptr]bool{}, mapped: map[unsafe.Pointer]device.Ptr{}, opened: map[device.Ptr]bool{}}
}

// Info implements device.GPU.
func (g *MemGPU) Info() device.Info {
	return device.Info{Ordinal: g.rank, Name: "Stand-in GPU", BusID: fmt.Sprintf("0000:00:%02x.0", g.rank), SMs: 4}
}

// Bind implements device.GPU.
func (g *MemGPU) Bind() error { return nil }

// SetDeviceConfig implements device.GPU.
func (g *MemGPU) SetDeviceConfig(time.Duration, device.Ptr, int, int) error { return nil }

// CanAccessPeer implements device.GPU.
func (g *MemGPU) CanAccessPeer(string) (bool, error) { return !g.NoPeer, nil }

// Alloc implements device.GPU.
func (g *MemGPU) Alloc(n uint64) (device.Ptr, error) {
	p := g.Space.add(make([]byte, max(n, 1)))
	g.mu.Lock()
	g.allocs[p] = true
	g.mu.Unlock()
	return p, nil
}

// Free implements device.GPU.
func (g *MemGPU) Free(p device.Ptr) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.allocs[p] || !g.Space.remove(p) {
		return fmt.Errorf("free of unknown %v", p)
	}
	delete(g.allocs, p)
	return nil
}

// AllocMapped implements device.GPU.
func (g *MemGPU) AllocMapped(n uint64) (unsafe.Pointer, device.Ptr, error) {
	b := make([]byte, n)
	host := unsafe.Pointer(&b[0])
	p := g.Space.add(b)
	g.mu.Lock()
	g.mapped[host] = p
	g.mu.Unlock()
	return host, p, nil
}

// FreeMapped implements device.GPU.
func (g *MemGPU) FreeMapped(host unsafe.Pointer) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, ok := g.mapped[host]
	if !ok || !g.Space.remove(p) {
		return fmt.Errorf("free of unknown mapped memory %p", host)
	}
	delete(g.mapped, host)
	return nil
}

// HostRegister implements device.GPU.
func (g *MemGPU) HostRegister(host unsafe.Pointer, n uint64) (device.Ptr, error) {
	p := g.Space.add(unsafe.Slice((*byte)(host), n))
	g.mu.Lock()
	g.mapped[host] = p
	g.mu.Unlock()
	return p, nil
}

// HostUnregister implements device.GPU.
func (g *MemGPU) HostUnregister(host unsafe.Pointer) error { return g.FreeMapped(host) }

// Memset implements device.GPU.
func (g *MemGPU) Memset(p device.Ptr, v byte, n uint64) error {
	b := g.Space.Bytes(p, n)
	for i := range b {
		b[i] = v
	}
	return nil
}

// CopyToDevice implements device.GPU.
func (g *MemGPU) CopyToDevice(dst device.Ptr, src []byte) error {
	copy(g.Space.Bytes(dst, uint64(len(src))), src)
	return nil
}

// CopyFromDevice implements device.GPU.
func (g *MemGPU) CopyFromDevice(dst []byte, src device.Ptr) error {
	copy(dst, g.Space.Bytes(src, uint64(len(dst))))
	return nil
}

// IPCGetHandle implements device.GPU.
func (g *MemGPU) IPCGetHandle(p device.Ptr) (device.IPCHandle, error) {
	var h device.IPCHandle
	binary.LittleEndian.PutUint64(h[:], uint64(p))
	return h, nil
}

// IPCOpen implements device.GPU.
func (g *MemGPU) IPCOpen(h device.IPCHandle) (device.Ptr, error) {
	p := device.Ptr(binary.LittleEndian.Uint64(h[:]))
	g.mu.Lock()
	defer g.mu.Unlock()
	g.opened[p] = true
	return p, nil
}

// IPCClose implements device.GPU.
func (g *MemGPU) IPCClose(p device.Ptr) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.opened[p] {
		return fmt.Errorf("close of unmapped %v", p)
	}
	delete(g.opened, p)
	return nil
}

// NewStream implements device.GPU.
func (g *MemGPU) NewStream() (device.Stream, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.nextStream++
	s := &MemStream{ops: make(chan MemOp, 1024), done: make(chan struct{})}
	g.streams[g.nextStream] = s
	go func() {
		defer close(s.done)
		for op := range s.ops {
			op.exec()
			s.pending.Add(-1)
		}
	}()
	return g.nextStream, nil
}

func (g *MemGPU) stream(s device.Stream) *MemStream {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.streams[s]
	if st == nil {
		panic(fmt.Sprintf("stand-in GPU: unknown stream %d", s))
	}
	return st
}

// DestroyStream implements device.GPU.
func (g *MemGPU) DestroyStream(s device.Stream) error {
	st := g.stream(s)
	g.mu.Lock()
	delete(g.streams, s)
	g.mu.Unlock()
	close(st.ops)
	<-st.done
	return nil
}

// MemOp is queued stream work; copies may finish late (a GPU copy takes time, and code
// that does not wait for it must see stale bytes), 64-bit writes do not.
type MemOp struct {
	run  func()
	late bool
}

func (o MemOp) exec() {
	if o.late && rand.IntN(2) == 0 {
		time.Sleep(200 * time.Microsecond)
	}
	o.run()
}

func (g *MemGPU) enqueue(s device.Stream, op MemOp) error {
	st := g.stream(s)
	g.StreamOps.Add(1)
	if g.Prompt {
		op.run()
		return nil
	}
	st.pending.Add(1)
	st.ops <- op
	return nil
}

// CopyAsync implements device.GPU.
func (g *MemGPU) CopyAsync(dst, src device.Ptr, n uint64, s device.Stream) error {
	d, from := g.Space.Bytes(dst, n), g.Space.Bytes(src, n) // bad addresses fail at once
	return g.enqueue(s, MemOp{func() { copy(d, from) }, true})
}

// WriteValue64Async implements device.GPU.
func (g *MemGPU) WriteValue64Async(dst device.Ptr, v uint64, s device.Stream) error {
	w := (*uint64)(unsafe.Pointer(&g.Space.Bytes(dst, 8)[0]))
	return g.enqueue(s, MemOp{func() { atomic.StoreUint64(w, v) }, false})
}

// StreamIdle implements device.GPU.
func (g *MemGPU) StreamIdle(s device.Stream) (bool, error) {
	return g.stream(s).pending.Load() == 0, nil
}

// Synchronize implements device.GPU.
func (g *MemGPU) Synchronize(s device.Stream, timeout time.Duration) error {
	st := g.stream(s)
	deadline := time.Now().Add(timeout)
	for st.pending.Load() != 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("stand-in GPU %d: stream %d did not finish within %v", g.rank, s, timeout)
		}
		time.Sleep(10 * time.Microsecond)
	}
	return nil
}

// Leaks reports memory and streams that Close left behind.
func (g *MemGPU) Leaks() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.allocs)+len(g.mapped)+len(g.streams)+len(g.opened) == 0 {
		return ""
	}
	return fmt.Sprintf("%d allocations, %d mapped or registered host buffers, %d streams, %d IPC mappings", len(g.allocs), len(g.mapped), len(g.streams), len(g.opened))
}

// Word returns the 64-bit word at device address p.
func (g *MemGPU) Word(p device.Ptr) *uint64 {
	return (*uint64)(unsafe.Pointer(&g.Space.Bytes(p, 8)[0]))
}

// CPUPort drives a port channel the way a GPU thread does (port_channel_device.cuh):
// it pushes triggers into the proxy FIFO and waits on the channel's semaphore.
type CPUPort struct {
	g        *MemGPU
	H        channels.PortChannelHandle
	head     *atomic.Uint64 // shared by every channel of the rank: one FIFO
	expected uint64
	Timeout  time.Duration
	Spin     bool // wait polls without sleeping, as a GPU thread does
	// failed is the rank's device error (Mesh.DeviceError), which every wait polls as a
	// kernel polls the mesh's error word: a broken connection (a peer that sent a wrong
	// byte count, one that stopped) ends the wait at once, not at its timeout.
	failed func() error
}

// poll waits until done, failing on the rank's device error at once and on c.timeout.
func (c *CPUPort) poll(done func() bool, what string, args ...any) error {
	deadline := time.Now().Add(c.Timeout)
	for i := 0; !done(); i++ {
		if i&31 == 31 {
			if c.failed != nil {
				if err := c.failed(); err != nil {
					return fmt.Errorf("waiting for "+what+": %w", append(args, err)...)
				}
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("timed out after %v waiting for "+what, append([]any{c.Timeout}, args...)...)
			}
		}
		if c.Spin {
			affinity.Yield()
		} else {
			time.Sleep(20 * time.Microsecond)
		}
	}
	return nil
}

// Push claims a FIFO slot, waiting for room as a GPU thread does, and writes the
// trigger; it returns the trigger's position.
func (c *CPUPort) Push(typ uint32, dstOff, srcOff, size uint64) (uint64, error) {
	f := c.H.Fifo
	tail := c.g.Word(device.Ptr(f.Tail))
	pos := c.head.Add(1) - 1
	if err := c.poll(func() bool { return pos < atomic.LoadUint64(tail)+uint64(f.Size) }, "room in the FIFO"); err != nil {
		return 0, err
	}
	tr := channels.MakeTrigger(typ, c.H.ID, dstOff, srcOff, size)
	slot := device.Ptr(f.Triggers).Add((pos & uint64(f.Size-1)) * 16)
	atomic.StoreUint64(c.g.Word(slot), tr.Fst)
	atomic.StoreUint64(c.g.Word(slot.Add(8)), tr.Snd)
	return pos, nil
}

// sync waits until the proxy has consumed the trigger at pos.
func (c *CPUPort) sync(pos uint64) error {
	tail := c.g.Word(device.Ptr(c.H.Fifo.Tail))
	return c.poll(func() bool { return atomic.LoadUint64(tail) > pos }, "the proxy to take trigger %d", pos)
}

// PutWithSignal pushes a put of size bytes and a signal of the peer.
func (c *CPUPort) PutWithSignal(dstOff, srcOff, size uint64) error {
	_, err := c.Push(channels.TriggerData|channels.TriggerFlag, dstOff, srcOff, size)
	return err
}

// Flush pushes a sync trigger and waits until the proxy has taken it.
func (c *CPUPort) Flush() error {
	pos, err := c.Push(channels.TriggerSync, 0, 0, 0)
	if err != nil {
		return err
	}
	return c.sync(pos)
}

// Wait consumes one signal from the peer.
func (c *CPUPort) Wait() error {
	c.expected++
	in := c.g.Word(device.Ptr(c.H.Sem.Inbound))
	return c.poll(func() bool { return atomic.LoadUint64(in) >= c.expected },
		"signal %d from rank %d (token at %d)", c.expected, c.H.Peer, atomic.LoadUint64(in))
}

// WaitFor polls done until it holds, or fails after timeout naming what it waited for.
func WaitFor(timeout time.Duration, done func() bool, what string, args ...any) error {
	deadline := time.Now().Add(timeout)
	for !done() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for "+what, append([]any{timeout}, args...)...)
		}
		time.Sleep(20 * time.Microsecond)
	}
	return nil
}
