// Package devicetest provides a device.GPU in host memory, for CPU tests of code that
// drives a GPU through device.GPU and channels.Mesh (the harness, the worker's glue).
// The ranks of a test share one Space: one address space, so a CUDA IPC handle is just
// the address and every rank reads every other rank's buffers as a peer GPU would.
// Kernels are Go functions registered by name; a launch runs its kernel at once on the
// launching goroutine, so every stream is always complete. Graph capture records launches
// and a graph launch replays them.
package devicetest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Kernel is a kernel's body: g is the launching rank's GPU, args the launch's arguments.
type Kernel func(g *GPU, args []uint64) error

// Space is the memory and kernels the ranks of one test share.
type Space struct {
	// Timeout bounds Barrier, so that a rank that never arrives fails the test instead of
	// hanging it.
	Timeout time.Duration

	mu      sync.Mutex
	next    uint64
	allocs  map[device.Ptr][]byte
	kernels []string
	bodies  map[string]Kernel

	bmu   sync.Mutex
	bcond *sync.Cond
	bars  map[string]*barrierState // by key; "" is Barrier's
}

// barrierState is one barrier's arrivals and generation.
type barrierState struct {
	wait int
	gen  uint64
}

// NewSpace returns a Space whose kernels are those given, by name.
func NewSpace(kernels map[string]Kernel) *Space {
	s := &Space{Timeout: 10 * time.Second, next: 1 << 32, allocs: map[device.Ptr][]byte{}, bodies: map[string]Kernel{},
		bars: map[string]*barrierState{}}
	s.bcond = sync.NewCond(&s.bmu)
	for name, k := range kernels {
		s.kernels = append(s.kernels, name)
		s.bodies[name] = k
	}
	return s
}

// add maps b at a new device address, 256-byte aligned with a gap after it.
func (s *Space) add(b []byte) device.Ptr {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := device.Ptr(s.next)
	s.next += (uint64(len(b)) + 255) / 256 * 256
	s.next += 4096
	s.allocs[p] = b
	return p
}

// Bytes returns the n bytes at p, wherever they were allocated, or an error when they are
// not all inside one allocation.
func (s *Space) Bytes(p device.Ptr, n uint64) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for base, b := range s.allocs {
		if p >= base && uint64(p-base)+n <= uint64(len(b)) {
			off := uint64(p - base)
			return b[off : off+n : off+n], nil
		}
	}
	return nil, fmt.Errorf("devicetest: %d bytes at %v are not allocated", n, p)
}

// Barrier waits until n goroutines (the ranks' kernels) have called it, as kernels wait
// on each other's semaphores; it fails after Timeout.
func (s *Space) Barrier(n int) error { return s.BarrierOf("", n) }

// BarrierOf is Barrier for the goroutines that give the same key: ranks of one group of a
// job (whose kernels may run at the same time as another group's) meet only each other.
func (s *Space) BarrierOf(key string, n int) error {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	b := s.bars[key]
	if b == nil {
		b = &barrierState{}
		s.bars[key] = b
	}
	gen := b.gen
	b.wait++
	if b.wait == n {
		b.wait, b.gen = 0, b.gen+1
		s.bcond.Broadcast()
		return nil
	}
	deadline := time.Now().Add(s.Timeout)
	wake := time.AfterFunc(s.Timeout, func() {
		s.bmu.Lock()
		s.bcond.Broadcast()
		s.bmu.Unlock()
	})
	defer wake.Stop()
	for gen == b.gen {
		if !time.Now().Before(deadline) {
			b.wait--
			return fmt.Errorf("devicetest: barrier of %d timed out after %s", n, s.Timeout)
		}
		s.bcond.Wait()
	}
	return nil
}

// GPU is one rank's device in a Space.
type GPU struct {
	space *Space
	info  device.Info

	mu        sync.Mutex
	free      uint64 // MemInfo's free bytes; 0: TotalMemory
	streams   int
	capturing map[device.Stream][]launch
	graphs    map[device.Graph][]launch
	nextGraph device.Graph
	events    map[device.Event]time.Time
	mapped    map[unsafe.Pointer]device.Ptr
}

// launch is a recorded kernel launch.
type launch struct {
	k    device.Kernel
	args []uint64
}

// NewGPU returns rank's GPU in s.
func (s *Space) NewGPU(rank int) *GPU {
	return &GPU{
		space: s,
		info: device.Info{Ordinal: rank, Name: "devicetest GPU", BusID: fmt.Sprintf("0000:%02x:00.0", rank+1),
			SMs: 4, Major: 9, TotalMemory: 16 << 30},
		capturing: map[device.Stream][]launch{}, graphs: map[device.Graph][]launch{},
		events: map[device.Event]time.Time{}, mapped: map[unsafe.Pointer]device.Ptr{},
	}
}

// Space returns the Space g lives in (for kernels that read peers' memory).
func (g *GPU) Space() *Space { return g.space }

// Rank returns the rank NewGPU was given.
func (g *GPU) Rank() int { return g.info.Ordinal }

// Info implements device.GPU.
func (g *GPU) Info() device.Info { return g.info }

// Bind implements device.GPU.
func (g *GPU) Bind() error { return nil }

// Alloc implements device.GPU.
func (g *GPU) Alloc(bytes uint64) (device.Ptr, error) { return g.space.add(make([]byte, bytes)), nil }

// Free implements device.GPU.
func (g *GPU) Free(p device.Ptr) error {
	g.space.mu.Lock()
	defer g.space.mu.Unlock()
	if _, ok := g.space.allocs[p]; !ok {
		return fmt.Errorf("devicetest: free of unknown %v", p)
	}
	delete(g.space.allocs, p)
	return nil
}

// AllocMapped implements device.GPU: host memory that is also in the Space.
func (g *GPU) AllocMapped(bytes uint64) (unsafe.Pointer, device.Ptr, error) {
	b := make([]byte, max(bytes, 1))
	p := g.space.add(b)
	g.mu.Lock()
	g.mapped[unsafe.Pointer(&b[0])] = p
	g.mu.Unlock()
	return unsafe.Pointer(&b[0]), p, nil
}

// FreeMapped implements device.GPU.
func (g *GPU) FreeMapped(host unsafe.Pointer) error {
	g.mu.Lock()
	p, ok := g.mapped[host]
	delete(g.mapped, host)
	g.mu.Unlock()
	if !ok {
		return fmt.Errorf("devicetest: free of unknown mapped memory %p", host)
	}
	return g.Free(p)
}

// HostRegister implements device.GPU.
func (g *GPU) HostRegister(host unsafe.Pointer, bytes uint64) (device.Ptr, error) {
	p := g.space.add(unsafe.Slice((*byte)(host), bytes))
	g.mu.Lock()
	g.mapped[host] = p
	g.mu.Unlock()
	return p, nil
}

// HostUnregister implements device.GPU.
func (g *GPU) HostUnregister(host unsafe.Pointer) error { return g.FreeMapped(host) }

// MemInfo implements device.GPU: all of TotalMemory is free unless SetFree said less.
func (g *GPU) MemInfo() (free, total uint64, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.free != 0 {
		return g.free, g.info.TotalMemory, nil
	}
	return g.info.TotalMemory, g.info.TotalMemory, nil
}

// SetFree makes MemInfo report bytes free (0: all of TotalMemory), as a GPU with other
// work on it would.
func (g *GPU) SetFree(bytes uint64) {
	g.mu.Lock()
	g.free = bytes
	g.mu.Unlock()
}

// Memset implements device.GPU.
func (g *GPU) Memset(p device.Ptr, v byte, bytes uint64) error {
	b, err := g.space.Bytes(p, bytes)
	if err != nil {
		return err
	}
	for i := range b {
		b[i] = v
	}
	return nil
}

// CopyToDevice implements device.GPU.
func (g *GPU) CopyToDevice(dst device.Ptr, src []byte) error {
	b, err := g.space.Bytes(dst, uint64(len(src)))
	if err != nil {
		return err
	}
	copy(b, src)
	return nil
}

// CopyFromDevice implements device.GPU.
func (g *GPU) CopyFromDevice(dst []byte, src device.Ptr) error {
	b, err := g.space.Bytes(src, uint64(len(dst)))
	if err != nil {
		return err
	}
	copy(dst, b)
	return nil
}

// IPCGetHandle implements device.GPU: the handle holds the address.
func (g *GPU) IPCGetHandle(p device.Ptr) (device.IPCHandle, error) {
	var h device.IPCHandle
	binary.LittleEndian.PutUint64(h[:], uint64(p))
	return h, nil
}

// IPCOpen implements device.GPU: the Space is shared, so the address is the peer's.
func (g *GPU) IPCOpen(h device.IPCHandle) (device.Ptr, error) {
	return device.Ptr(binary.LittleEndian.Uint64(h[:])), nil
}

// IPCClose implements device.GPU.
func (g *GPU) IPCClose(device.Ptr) error { return nil }

// CanAccessPeer implements device.GPU.
func (g *GPU) CanAccessPeer(string) (bool, error) { return true, nil }

// NewStream implements device.GPU.
func (g *GPU) NewStream() (device.Stream, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.streams++
	return device.Stream(g.streams), nil
}

// DestroyStream implements device.GPU.
func (g *GPU) DestroyStream(device.Stream) error { return nil }

// Synchronize implements device.GPU: work runs at launch, so there is nothing to wait for.
func (g *GPU) Synchronize(device.Stream, time.Duration) error { return nil }

// StreamIdle implements device.GPU.
func (g *GPU) StreamIdle(device.Stream) (bool, error) { return true, nil }

// errCapturing is returned by asynchronous copies on a capturing stream, which the
// stand-in does not record.
var errCapturing = errors.New("devicetest: only kernel launches can be captured")

// CopyAsync implements device.GPU.
func (g *GPU) CopyAsync(dst, src device.Ptr, bytes uint64, s device.Stream) error {
	if g.isCapturing(s) {
		return errCapturing
	}
	from, err := g.space.Bytes(src, bytes)
	if err != nil {
		return err
	}
	to, err := g.space.Bytes(dst, bytes)
	if err != nil {
		return err
	}
	copy(to, from)
	return nil
}

// MemsetAsync implements device.GPU.
func (g *GPU) MemsetAsync(p device.Ptr, v byte, bytes uint64, s device.Stream) error {
	if g.isCapturing(s) {
		return errCapturing
	}
	return g.Memset(p, v, bytes)
}

// WriteValue64Async implements device.GPU.
func (g *GPU) WriteValue64Async(dst device.Ptr, v uint64, s device.Stream) error {
	if g.isCapturing(s) {
		return errCapturing
	}
	b, err := g.space.Bytes(dst, 8)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint64(b, v)
	return nil
}

// Kernel implements device.GPU.
func (g *GPU) Kernel(name string) (device.Kernel, error) {
	for i, n := range g.space.kernels {
		if n == name {
			return device.Kernel(i + 1), nil
		}
	}
	return 0, fmt.Errorf("devicetest: no kernel %q", name)
}

// Launch implements device.GPU: the kernel runs now (or is recorded while capturing).
func (g *GPU) Launch(k device.Kernel, _ device.Dim, s device.Stream, args ...uint64) error {
	if int(k) < 1 || int(k) > len(g.space.kernels) {
		return fmt.Errorf("devicetest: launch of unknown kernel %d", k)
	}
	g.mu.Lock()
	if list, ok := g.capturing[s]; ok {
		g.capturing[s] = append(list, launch{k, append([]uint64(nil), args...)})
		g.mu.Unlock()
		return nil
	}
	g.mu.Unlock()
	name := g.space.kernels[k-1]
	if err := g.space.bodies[name](g, args); err != nil {
		return fmt.Errorf("kernel %s: %w", name, err)
	}
	return nil
}

func (g *GPU) isCapturing(s device.Stream) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.capturing[s]
	return ok
}

// NewEvent implements device.GPU.
func (g *GPU) NewEvent() (device.Event, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	e := device.Event(len(g.events) + 1)
	g.events[e] = time.Time{}
	return e, nil
}

// DestroyEvent implements device.GPU.
func (g *GPU) DestroyEvent(device.Event) error { return nil }

// Record implements device.GPU.
func (g *GPU) Record(e device.Event, _ device.Stream) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.events[e] = time.Now()
	return nil
}

// ElapsedMs implements device.GPU.
func (g *GPU) ElapsedMs(start, end device.Event) (float64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return float64(g.events[end].Sub(g.events[start]).Nanoseconds()) / 1e6, nil
}

// BeginCapture implements device.GPU.
func (g *GPU) BeginCapture(s device.Stream) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.capturing[s]; ok {
		return errors.New("devicetest: stream is already capturing")
	}
	g.capturing[s] = []launch{}
	return nil
}

// EndCapture implements device.GPU.
func (g *GPU) EndCapture(s device.Stream) (device.Graph, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	list, ok := g.capturing[s]
	if !ok {
		return 0, errors.New("devicetest: stream is not capturing")
	}
	delete(g.capturing, s)
	g.nextGraph++
	g.graphs[g.nextGraph] = list
	return g.nextGraph, nil
}

// LaunchGraph implements device.GPU: the captured launches run again, in order.
func (g *GPU) LaunchGraph(gr device.Graph, s device.Stream) error {
	g.mu.Lock()
	list, ok := g.graphs[gr]
	g.mu.Unlock()
	if !ok {
		return fmt.Errorf("devicetest: unknown graph %d", gr)
	}
	for _, l := range list {
		if err := g.Launch(l.k, device.Dim{}, s, l.args...); err != nil {
			return err
		}
	}
	return nil
}

// DestroyGraph implements device.GPU.
func (g *GPU) DestroyGraph(gr device.Graph) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.graphs, gr)
	return nil
}

// SetDeviceConfig implements device.GPU.
func (g *GPU) SetDeviceConfig(time.Duration, device.Ptr, int, int) error { return nil }

// Close implements device.GPU.
func (g *GPU) Close() error { return nil }

var _ device.GPU = (*GPU)(nil)
