package channelstest

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// HostFifo is FIFO memory in ordinary Go memory plus a producer that follows the device
// protocol of port_channel_device.cuh step by step.
type HostFifo struct {
	Mem  []uint64 // slots, then the tail word
	head atomic.Uint64
	size uint64
	Fifo *channels.Fifo
}

// NewHostFifo returns a FIFO of size slots in Go memory, with its producer.
func NewHostFifo(t *testing.T, size int) *HostFifo {
	t.Helper()
	h := &HostFifo{Mem: make([]uint64, size*2+1), size: uint64(size)}
	f, err := channels.NewFifo(size, unsafe.Pointer(&h.Mem[0]), &h.Mem[size*2])
	if err != nil {
		t.Fatal(err)
	}
	h.Fifo = f
	return h
}

// Push is the device's Fifo::push: claim, wait for room, write fst then snd.
func (h *HostFifo) Push(tr channels.Trigger) uint64 {
	pos := h.head.Add(1) - 1
	for pos >= atomic.LoadUint64(&h.Mem[h.size*2])+h.size {
		runtime.Gosched()
	}
	i := (pos & (h.size - 1)) * 2
	if atomic.LoadUint64(&h.Mem[i+1]) != 0 {
		panic(fmt.Sprintf("producer would overwrite an unconsumed trigger at position %d", pos))
	}
	atomic.StoreUint64(&h.Mem[i], tr.Fst)
	atomic.StoreUint64(&h.Mem[i+1], tr.Snd)
	return pos
}

// FakeEngine records what the proxy asks of the copy engine.
type FakeEngine struct {
	Mu    sync.Mutex
	Ops   []string
	syncs int
	// Running makes StreamIdle report streams busy.
	Running bool
}

// Bind implements channels.CopyEngine.
func (f *FakeEngine) Bind() error { return nil }

// CopyAsync implements channels.CopyEngine.
func (f *FakeEngine) CopyAsync(dst, src device.Ptr, n uint64, s device.Stream) error {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.Ops = append(f.Ops, fmt.Sprintf("copy %v<-%v %d s%d", dst, src, n, s))
	return nil
}

// WriteValue64Async implements channels.CopyEngine.
func (f *FakeEngine) WriteValue64Async(dst device.Ptr, v uint64, s device.Stream) error {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.Ops = append(f.Ops, fmt.Sprintf("write %v=%d s%d", dst, v, s))
	return nil
}

// StreamIdle implements channels.CopyEngine.
func (f *FakeEngine) StreamIdle(s device.Stream) (bool, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.Ops = append(f.Ops, fmt.Sprintf("query s%d", s))
	return !f.Running, nil
}

// Synchronize implements channels.CopyEngine.
func (f *FakeEngine) Synchronize(s device.Stream, _ time.Duration) error {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.Ops = append(f.Ops, fmt.Sprintf("sync s%d", s))
	return nil
}
