package channels

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// memSpace is device memory for stand-in GPUs: fake device addresses (from 1<<60 up, so
// they never look like host pointers) that resolve to real bytes. Ranks of one process
// share a space, so a CUDA IPC "mapping" is the owner's address itself.
type memSpace struct {
	mu      sync.Mutex
	next    device.Ptr
	regions []memRegion // sorted by base
}

type memRegion struct {
	base device.Ptr
	b    []byte
}

func newMemSpace() *memSpace { return &memSpace{next: 1 << 60} }

// add maps b at a new device address.
func (s *memSpace) add(b []byte) device.Ptr {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.next
	s.next += device.Ptr((uint64(len(b)) + 4096 + 255) &^ 255)
	s.regions = append(s.regions, memRegion{p, b})
	return p
}

func (s *memSpace) remove(p device.Ptr) bool {
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

// bytes returns device memory [p, p+n); it panics on an address nothing maps, which is
// the stand-in's segmentation fault.
func (s *memSpace) bytes(p device.Ptr, n uint64) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := sort.Search(len(s.regions), func(i int) bool { return s.regions[i].base > p }) - 1
	if i < 0 || uint64(p-s.regions[i].base)+n > uint64(len(s.regions[i].b)) {
		panic(fmt.Sprintf("stand-in GPU: %d bytes at %v are not device memory", n, p))
	}
	off := uint64(p - s.regions[i].base)
	return s.regions[i].b[off : off+n]
}

// memGPU is a stand-in device.GPU with real memory (the mesh tests' GPU). Streams run on goroutines of their
// own, in order and a little late, as a GPU would: code that forgets to wait for a copy
// reads stale bytes.
type memGPU struct {
	device.GPU // what tests do not expect panics (nil interface)
	rank       int
	space      *memSpace
	noPeer     bool // CanAccessPeer says no
	// prompt runs copies and writes at once on the caller (every stream always idle), for
	// measuring the transports' own costs (ethernet_loopback_bench_test.go).
	prompt bool

	mu         sync.Mutex
	streams    map[device.Stream]*memStream
	nextStream device.Stream
	allocs     map[device.Ptr]bool
	mapped     map[unsafe.Pointer]device.Ptr
	opened     map[device.Ptr]bool // IPCOpen'ed and not closed
	streamOps  atomic.Int64        // copies and writes queued on its streams
}

type memStream struct {
	ops     chan memOp
	pending atomic.Int64
	done    chan struct{}
}

func newMemGPU(rank int, space *memSpace) *memGPU {
	return &memGPU{rank: rank, space: space, streams: map[device.Stream]*memStream{},
		allocs: map[device.Ptr]bool{}, mapped: map[unsafe.Pointer]device.Ptr{}, opened: map[device.Ptr]bool{}}
}

func (g *memGPU) Info() device.Info {
	return device.Info{Ordinal: g.rank, Name: "Stand-in GPU", BusID: fmt.Sprintf("0000:00:%02x.0", g.rank), SMs: 4}
}
func (g *memGPU) Bind() error                                               { return nil }
func (g *memGPU) SetDeviceConfig(time.Duration, device.Ptr, int, int) error { return nil }
func (g *memGPU) CanAccessPeer(string) (bool, error)                        { return !g.noPeer, nil }

func (g *memGPU) Alloc(n uint64) (device.Ptr, error) {
	p := g.space.add(make([]byte, max(n, 1)))
	g.mu.Lock()
	g.allocs[p] = true
	g.mu.Unlock()
	return p, nil
}

func (g *memGPU) Free(p device.Ptr) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.allocs[p] || !g.space.remove(p) {
		return fmt.Errorf("free of unknown %v", p)
	}
	delete(g.allocs, p)
	return nil
}

func (g *memGPU) AllocMapped(n uint64) (unsafe.Pointer, device.Ptr, error) {
	b := make([]byte, n)
	host := unsafe.Pointer(&b[0])
	p := g.space.add(b)
	g.mu.Lock()
	g.mapped[host] = p
	g.mu.Unlock()
	return host, p, nil
}

func (g *memGPU) FreeMapped(host unsafe.Pointer) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, ok := g.mapped[host]
	if !ok || !g.space.remove(p) {
		return fmt.Errorf("free of unknown mapped memory %p", host)
	}
	delete(g.mapped, host)
	return nil
}

func (g *memGPU) HostRegister(host unsafe.Pointer, n uint64) (device.Ptr, error) {
	p := g.space.add(unsafe.Slice((*byte)(host), n))
	g.mu.Lock()
	g.mapped[host] = p
	g.mu.Unlock()
	return p, nil
}

func (g *memGPU) HostUnregister(host unsafe.Pointer) error { return g.FreeMapped(host) }

func (g *memGPU) Memset(p device.Ptr, v byte, n uint64) error {
	b := g.space.bytes(p, n)
	for i := range b {
		b[i] = v
	}
	return nil
}

func (g *memGPU) CopyToDevice(dst device.Ptr, src []byte) error {
	copy(g.space.bytes(dst, uint64(len(src))), src)
	return nil
}

func (g *memGPU) CopyFromDevice(dst []byte, src device.Ptr) error {
	copy(dst, g.space.bytes(src, uint64(len(dst))))
	return nil
}

func (g *memGPU) IPCGetHandle(p device.Ptr) (device.IPCHandle, error) {
	var h device.IPCHandle
	binary.LittleEndian.PutUint64(h[:], uint64(p))
	return h, nil
}

func (g *memGPU) IPCOpen(h device.IPCHandle) (device.Ptr, error) {
	p := device.Ptr(binary.LittleEndian.Uint64(h[:]))
	g.mu.Lock()
	defer g.mu.Unlock()
	g.opened[p] = true
	return p, nil
}

func (g *memGPU) IPCClose(p device.Ptr) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.opened[p] {
		return fmt.Errorf("close of unmapped %v", p)
	}
	delete(g.opened, p)
	return nil
}

func (g *memGPU) NewStream() (device.Stream, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.nextStream++
	s := &memStream{ops: make(chan memOp, 1024), done: make(chan struct{})}
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

func (g *memGPU) stream(s device.Stream) *memStream {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.streams[s]
	if st == nil {
		panic(fmt.Sprintf("stand-in GPU: unknown stream %d", s))
	}
	return st
}

func (g *memGPU) DestroyStream(s device.Stream) error {
	st := g.stream(s)
	g.mu.Lock()
	delete(g.streams, s)
	g.mu.Unlock()
	close(st.ops)
	<-st.done
	return nil
}

// memOp is queued stream work; copies may finish late (a GPU copy takes time, and code
// that does not wait for it must see stale bytes), 64-bit writes do not.
type memOp struct {
	run  func()
	late bool
}

func (o memOp) exec() {
	if o.late && rand.IntN(2) == 0 {
		time.Sleep(200 * time.Microsecond)
	}
	o.run()
}

func (g *memGPU) enqueue(s device.Stream, op memOp) error {
	st := g.stream(s)
	g.streamOps.Add(1)
	if g.prompt {
		op.run()
		return nil
	}
	st.pending.Add(1)
	st.ops <- op
	return nil
}

func (g *memGPU) CopyAsync(dst, src device.Ptr, n uint64, s device.Stream) error {
	d, from := g.space.bytes(dst, n), g.space.bytes(src, n) // bad addresses fail at once
	return g.enqueue(s, memOp{func() { copy(d, from) }, true})
}

func (g *memGPU) WriteValue64Async(dst device.Ptr, v uint64, s device.Stream) error {
	w := (*uint64)(unsafe.Pointer(&g.space.bytes(dst, 8)[0]))
	return g.enqueue(s, memOp{func() { atomic.StoreUint64(w, v) }, false})
}

func (g *memGPU) StreamIdle(s device.Stream) (bool, error) {
	return g.stream(s).pending.Load() == 0, nil
}

func (g *memGPU) Synchronize(s device.Stream, timeout time.Duration) error {
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

// leaks reports memory and streams that Close left behind.
func (g *memGPU) leaks() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.allocs)+len(g.mapped)+len(g.streams)+len(g.opened) == 0 {
		return ""
	}
	return fmt.Sprintf("%d allocations, %d mapped or registered host buffers, %d streams, %d IPC mappings", len(g.allocs), len(g.mapped), len(g.streams), len(g.opened))
}

// word returns the 64-bit word at device address p.
func (g *memGPU) word(p device.Ptr) *uint64 {
	return (*uint64)(unsafe.Pointer(&g.space.bytes(p, 8)[0]))
}

// cpuPort drives a port channel the way a GPU thread does (port_channel_device.cuh):
// it pushes triggers into the proxy FIFO and waits on the channel's semaphore.
type cpuPort struct {
	g        *memGPU
	h        PortChannelHandle
	head     *atomic.Uint64 // shared by every channel of the rank: one FIFO
	expected uint64
	timeout  time.Duration
	spin     bool // wait polls without sleeping, as a GPU thread does
	// failed is the rank's device error (Mesh.DeviceError), which every wait polls as a
	// kernel polls the mesh's error word: a broken connection (a peer that sent a wrong
	// byte count, one that stopped) ends the wait at once, not at its timeout.
	failed func() error
}

// poll waits until done, failing on the rank's device error at once and on c.timeout.
func (c *cpuPort) poll(done func() bool, what string, args ...any) error {
	deadline := time.Now().Add(c.timeout)
	for i := 0; !done(); i++ {
		if i&31 == 31 {
			if c.failed != nil {
				if err := c.failed(); err != nil {
					return fmt.Errorf("waiting for "+what+": %w", append(args, err)...)
				}
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("timed out after %v waiting for "+what, append([]any{c.timeout}, args...)...)
			}
		}
		if c.spin {
			affinity.Yield()
		} else {
			time.Sleep(20 * time.Microsecond)
		}
	}
	return nil
}

func (c *cpuPort) push(typ uint32, dstOff, srcOff, size uint64) (uint64, error) {
	f := c.h.Fifo
	tail := c.g.word(device.Ptr(f.Tail))
	pos := c.head.Add(1) - 1
	if err := c.poll(func() bool { return pos < atomic.LoadUint64(tail)+uint64(f.Size) }, "room in the FIFO"); err != nil {
		return 0, err
	}
	tr := MakeTrigger(typ, c.h.ID, dstOff, srcOff, size)
	slot := device.Ptr(f.Triggers).Add((pos & uint64(f.Size-1)) * 16)
	atomic.StoreUint64(c.g.word(slot), tr.Fst)
	atomic.StoreUint64(c.g.word(slot.Add(8)), tr.Snd)
	return pos, nil
}

// sync waits until the proxy has consumed the trigger at pos.
func (c *cpuPort) sync(pos uint64) error {
	tail := c.g.word(device.Ptr(c.h.Fifo.Tail))
	return c.poll(func() bool { return atomic.LoadUint64(tail) > pos }, "the proxy to take trigger %d", pos)
}

func (c *cpuPort) putWithSignal(dstOff, srcOff, size uint64) error {
	_, err := c.push(TriggerData|TriggerFlag, dstOff, srcOff, size)
	return err
}

func (c *cpuPort) flush() error {
	pos, err := c.push(TriggerSync, 0, 0, 0)
	if err != nil {
		return err
	}
	return c.sync(pos)
}

// wait consumes one signal from the peer.
func (c *cpuPort) wait() error {
	c.expected++
	in := c.g.word(device.Ptr(c.h.Sem.Inbound))
	return c.poll(func() bool { return atomic.LoadUint64(in) >= c.expected },
		"signal %d from rank %d (token at %d)", c.expected, c.h.Peer, atomic.LoadUint64(in))
}

func waitFor(timeout time.Duration, done func() bool, what string, args ...any) error {
	deadline := time.Now().Add(timeout)
	for !done() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for "+what, append([]any{timeout}, args...)...)
		}
		time.Sleep(20 * time.Microsecond)
	}
	return nil
}

func TestMemGPUStreamsAreOrderedAndLate(t *testing.T) {
	g := newMemGPU(0, newMemSpace())
	a, _ := g.Alloc(1 << 16)
	b, _ := g.Alloc(1 << 16)
	s, _ := g.NewStream()
	defer g.DestroyStream(s)
	src := g.space.bytes(a, 1<<16)
	for i := range src {
		src[i] = byte(i / 3)
	}
	for i := 0; i < 64; i++ {
		g.CopyAsync(b.Add(uint64(i)*1024), a.Add(uint64(i)*1024), 1024, s)
	}
	g.WriteValue64Async(b, 0xfeed, s)
	if err := g.Synchronize(s, time.Second); err != nil {
		t.Fatal(err)
	}
	if *g.word(b) != 0xfeed || !bytes.Equal(g.space.bytes(b, 1<<16)[8:], src[8:]) {
		t.Fatal("stream ran out of order or not at all")
	}
}
