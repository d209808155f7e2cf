package channels

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Fifo is the host (consumer) half of the proxy FIFO; the device half is Fifo in
// kernels/include/mscclpp/port_channel_device.cuh.
//
// Protocol: a producer claims position pos by incrementing head; it may write slot
// pos%size only once pos < tail+size. It writes fst and snd, each with a valid bit, in one
// 16-byte release store. The consumer reads snd at slot tail%size; once both words are
// valid it handles the trigger, clears the slot and only then advances tail (a trigger whose
// halves land apart is taken only when both have). A producer therefore never
// overwrites a trigger that has not been consumed, and the consumer never reads a slot
// twice.
type Fifo struct {
	size  uint64
	slots unsafe.Pointer // size triggers of 16 bytes, host-addressable
	tailP *uint64        // host address of the tail word that producers read
	tail  uint64         // consumer's copy of tail

	// Device addresses for the handle (zero in host-only tests).
	devSlots, devTail, devHead, devTailCache device.Ptr
}

// NewFifo wraps consumer memory: slots (size × 16 bytes, zeroed) and a tail word, both
// in host memory the producers can reach. size must be a power of two.
func NewFifo(size int, slots unsafe.Pointer, tail *uint64) (*Fifo, error) {
	if size <= 0 || size&(size-1) != 0 {
		return nil, fmt.Errorf("fifo size %d is not a power of two", size)
	}
	return &Fifo{size: uint64(size), slots: slots, tailP: tail, tail: atomic.LoadUint64(tail)}, nil
}

// Size returns the number of slots.
func (f *Fifo) Size() int { return int(f.size) }

func (f *Fifo) slot(pos uint64) *[2]uint64 {
	return (*[2]uint64)(unsafe.Add(f.slots, (pos&(f.size-1))*16))
}

// Poll returns the trigger at the tail, if one has been published: both of its words
// have the valid bit set.
func (f *Fifo) Poll() (Trigger, bool) {
	s := f.slot(f.tail)
	snd := atomic.LoadUint64(&s[1])
	if snd&triggerValid == 0 {
		return Trigger{}, false
	}
	t := Trigger{Fst: atomic.LoadUint64(&s[0]), Snd: snd}
	return t, t.Valid()
}

// Pop clears the tail slot and hands it back to the producers.
func (f *Fifo) Pop() {
	s := f.slot(f.tail)
	atomic.StoreUint64(&s[0], 0)
	atomic.StoreUint64(&s[1], 0)
	f.tail++
	atomic.StoreUint64(f.tailP, f.tail)
}

// Tail returns how many triggers have been consumed.
func (f *Fifo) Tail() uint64 { return f.tail }

// Handle returns the device view of the FIFO.
func (f *Fifo) Handle() FifoHandle {
	return FifoHandle{
		Triggers:  uint64(f.devSlots),
		Head:      uint64(f.devHead),
		Tail:      uint64(f.devTail),
		TailCache: uint64(f.devTailCache),
		Size:      uint32(f.size),
	}
}

// gpuFifo is a Fifo in mapped pinned host memory with head and tail cache on the device.
type gpuFifo struct {
	*Fifo
	gpu     device.GPU
	host    unsafe.Pointer
	devWork device.Ptr
}

func newGPUFifo(g device.GPU, size int) (*gpuFifo, error) {
	if size <= 0 || size&(size-1) != 0 {
		return nil, fmt.Errorf("fifo size %d is not a power of two", size)
	}
	bytes := uint64(size)*16 + 64
	host, dev, err := g.AllocMapped(bytes)
	if err != nil {
		return nil, fmt.Errorf("proxy fifo: %w", err)
	}
	tail := (*uint64)(unsafe.Add(host, uint64(size)*16))
	f, err := NewFifo(size, host, tail)
	if err != nil {
		_ = g.FreeMapped(host)
		return nil, err
	}
	work, err := g.Alloc(64)
	if err != nil {
		_ = g.FreeMapped(host)
		return nil, fmt.Errorf("proxy fifo head: %w", err)
	}
	if err := g.Memset(work, 0, 64); err != nil {
		_ = g.FreeMapped(host)
		_ = g.Free(work)
		return nil, fmt.Errorf("proxy fifo head: %w", err)
	}
	f.devSlots = dev
	f.devTail = dev.Add(uint64(size) * 16)
	f.devHead = work
	f.devTailCache = work.Add(8)
	return &gpuFifo{Fifo: f, gpu: g, host: host, devWork: work}, nil
}

func (f *gpuFifo) close() error {
	err1 := f.gpu.FreeMapped(f.host)
	err2 := f.gpu.Free(f.devWork)
	if err1 != nil {
		return err1
	}
	return err2
}
