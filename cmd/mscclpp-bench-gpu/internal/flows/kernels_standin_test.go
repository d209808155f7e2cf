package flows

import (
	"fmt"
	"maps"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/verifytest"
)

// The stand-in's ping-pong kernels: Go transcriptions of kernels/pingpong.cu on the
// channel handles the mesh built (memory channels: the peer's semaphore token and buffer,
// mapped in the stand-in's one address space; port channels: triggers pushed into the
// real proxy's FIFO), and of verify.cu's poison, fill_pattern and check_pattern. A launch
// runs on its rank's goroutine, so a kernel waits for its peer's as a GPU's would. Two
// differences from the GPU's: a memory put is one block (one signal per round, where the
// GPU's grid sends one per block; both sides agree), and putFaults bytes of each memory put
// arrive wrong on purpose.

// putFaults is how many bytes of every memory put the stand-in corrupts (tests set it).
var putFaults atomic.Int64

// spinTimeout bounds every wait of a stand-in kernel, as the device's SpinGuard does.
const spinTimeout = 20 * time.Second

// word is the 8-byte device word at p.
func word(g *devicetest.GPU, p uint64) (*uint64, error) {
	b, err := g.Space().Bytes(device.Ptr(p), 8)
	if err != nil {
		return nil, err
	}
	return (*uint64)(unsafe.Pointer(&b[0])), nil
}

// spin waits until done, at most spinTimeout: it yields at first (a signal round trip
// takes microseconds), then sleeps between polls.
func spin(what string, done func() bool) error {
	deadline := time.Now().Add(spinTimeout)
	for i := 0; !done(); i++ {
		if i < 100 {
			runtime.Gosched()
			continue
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("stand-in kernel: timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Microsecond)
	}
	return nil
}

// handle reads the handle of type H at p.
func handle[H any](g *devicetest.GPU, p uint64) (H, error) {
	var h H
	b, err := g.Space().Bytes(device.Ptr(p), uint64(unsafe.Sizeof(h)))
	if err != nil {
		return h, err
	}
	return *(*H)(unsafe.Pointer(&b[0])), nil
}

// waitToken advances the expected count at expected by 1 and waits for the inbound token
// to reach it (semaphore_device.cuh's waitInbound).
func waitToken(g *devicetest.GPU, inbound, expected uint64, peer uint32) error {
	in, err := word(g, inbound)
	if err != nil {
		return err
	}
	exp, err := word(g, expected)
	if err != nil {
		return err
	}
	*exp++
	want := *exp
	return spin(fmt.Sprintf("signal %d from rank %d", want, peer), func() bool { return atomic.LoadUint64(in) >= want })
}

// memChan is memory_channel_device.cuh's MemoryChannel.
type memChan struct {
	g *devicetest.GPU
	h channels.MemoryChannelHandle
}

func (c memChan) signal() error {
	w, err := word(c.g, c.h.Sem.RemoteInbound)
	if err != nil {
		return err
	}
	atomic.AddUint64(w, 1)
	return nil
}

func (c memChan) wait() error { return waitToken(c.g, c.h.Sem.Inbound, c.h.Sem.Expected, c.h.Peer) }

func (c memChan) put(bytes uint64) error {
	dst, err := c.g.Space().Bytes(device.Ptr(c.h.Remote), bytes)
	if err != nil {
		return err
	}
	src, err := c.g.Space().Bytes(device.Ptr(c.h.Local), bytes)
	if err != nil {
		return err
	}
	copy(dst, src)
	for i := 0; i < int(putFaults.Load()) && i < len(dst); i++ {
		dst[i] ^= 0x40 // the fault: a byte that arrives wrong
	}
	return nil
}

// portChan is port_channel_device.cuh's PortChannel.
type portChan struct {
	g *devicetest.GPU
	h channels.PortChannelHandle
}

func (c portChan) push(typ uint32, bytes uint64) (uint64, error) {
	f := c.h.Fifo
	head, err := word(c.g, f.Head)
	if err != nil {
		return 0, err
	}
	tail, err := word(c.g, f.Tail)
	if err != nil {
		return 0, err
	}
	pos := atomic.AddUint64(head, 1) - 1
	if err := spin("a FIFO slot", func() bool { return pos < atomic.LoadUint64(tail)+uint64(f.Size) }); err != nil {
		return 0, err
	}
	t := channels.MakeTrigger(typ, c.h.ID, 0, 0, bytes)
	slot := f.Triggers + (pos&uint64(f.Size-1))*16
	fst, err := word(c.g, slot)
	if err != nil {
		return 0, err
	}
	snd, err := word(c.g, slot+8)
	if err != nil {
		return 0, err
	}
	atomic.StoreUint64(fst, t.Fst)
	atomic.StoreUint64(snd, t.Snd)
	return pos, nil
}

func (c portChan) signal() error {
	_, err := c.push(channels.TriggerFlag, 0)
	return err
}

func (c portChan) flush() error {
	pos, err := c.push(channels.TriggerSync, 0)
	if err != nil {
		return err
	}
	tail, err := word(c.g, c.h.Fifo.Tail)
	if err != nil {
		return err
	}
	return spin("the proxy", func() bool { return atomic.LoadUint64(tail) > pos })
}

func (c portChan) wait() error { return waitToken(c.g, c.h.Sem.Inbound, c.h.Sem.Expected, c.h.Peer) }

// roundTrips is pingpong.cu's signalRoundTrips: the initiator signals then waits, the
// other rank waits then signals.
func roundTrips(signal, wait func() error, iters, initiator uint64) error {
	for i := uint64(0); i < iters; i++ {
		first, second := wait, signal
		if initiator != 0 {
			first, second = signal, wait
		}
		if err := first(); err != nil {
			return err
		}
		if err := second(); err != nil {
			return err
		}
	}
	return nil
}

// pingpongKernels returns the kernels pingpong.New loads.
func pingpongKernels() map[string]devicetest.Kernel {
	mem := func(g *devicetest.GPU, p uint64) (memChan, error) {
		h, err := handle[channels.MemoryChannelHandle](g, p)
		return memChan{g, h}, err
	}
	port := func(g *devicetest.GPU, p uint64) (portChan, error) {
		h, err := handle[channels.PortChannelHandle](g, p)
		return portChan{g, h}, err
	}
	memSignal := func(g *devicetest.GPU, a []uint64) error { // (ch, iters, initiator)
		c, err := mem(g, a[0])
		if err != nil {
			return err
		}
		return roundTrips(c.signal, c.wait, a[1], a[2])
	}
	memPut := func(g *devicetest.GPU, a []uint64) error { // (ch, bytes, iters, send, recv)
		c, err := mem(g, a[0])
		if err != nil {
			return err
		}
		for i := uint64(0); i < a[2]; i++ {
			if a[3] != 0 {
				if err := c.put(a[1]); err != nil {
					return err
				}
				if err := c.signal(); err != nil {
					return err
				}
			}
			if a[4] != 0 {
				if err := c.wait(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	ks := map[string]devicetest.Kernel{
		"pingpong_memory_signal":         memSignal,
		"pingpong_memory_relaxed_signal": memSignal,
		"pingpong_memory_put":            memPut,
		"pingpong_memory_put_u8":         memPut,
		"pingpong_memory_handshake": func(g *devicetest.GPU, a []uint64) error { // (ch)
			c, err := mem(g, a[0])
			if err != nil {
				return err
			}
			if err := c.signal(); err != nil {
				return err
			}
			return c.wait()
		},
		"pingpong_port_signal": func(g *devicetest.GPU, a []uint64) error { // (ch, iters, initiator)
			c, err := port(g, a[0])
			if err != nil {
				return err
			}
			return roundTrips(c.signal, c.wait, a[1], a[2])
		},
		"pingpong_port_put": func(g *devicetest.GPU, a []uint64) error { // (ch, bytes, iters, send, recv)
			c, err := port(g, a[0])
			if err != nil {
				return err
			}
			for i := uint64(0); i < a[2]; i++ {
				if a[3] != 0 {
					if _, err := c.push(channels.TriggerData|channels.TriggerFlag, a[1]); err != nil {
						return err
					}
				}
				if a[4] != 0 {
					if err := c.wait(); err != nil {
						return err
					}
				}
			}
			if a[3] != 0 {
				return c.flush()
			}
			return nil
		},
		"pingpong_port_handshake": func(g *devicetest.GPU, a []uint64) error { // (ch)
			c, err := port(g, a[0])
			if err != nil {
				return err
			}
			if err := c.signal(); err != nil {
				return err
			}
			if err := c.flush(); err != nil {
				return err
			}
			return c.wait()
		},
	}
	maps.Copy(ks, verifytest.PatternKernels())
	return ks
}
