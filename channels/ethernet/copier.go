package ethernet

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"golang.org/x/sys/unix"
)

// DeviceCopier stages through pinned, device-mapped host memory of g (AllocMapped) and
// copies on g's streams with its copy engine. Its copy queues share CopyStreams streams,
// handed out in turn (see CopyStreams).
func DeviceCopier(g device.GPU) Copier { return &deviceCopier{g: g} }

// CopyStreams is how many streams a DeviceCopier's queues share (a connection has dozens
// of queues: a few per data socket and direction). The driver spreads a process's streams
// over CUDA_DEVICE_MAX_CONNECTIONS hardware queues, and work queued behind a kernel in
// one of them waits for that kernel; a copy that a spinning kernel waits for must not sit
// there. With a stream a queue and the driver's 8 hardware queues, 4 ranks as 2 hosts of 2
// on 4xH100 (2026-11-27) hung in allgather hier at its first size in 2 of 12 runs: a
// receiver's copy of at most 64 KiB into GPU memory did not finish within 30 s. Few
// streams in all (these, the kernels' stream, one per CUDA IPC peer) get a hardware queue
// each of the 32 the front end asks for (gpushare.WorkerQueues).
const CopyStreams = 4

type deviceCopier struct {
	g    device.GPU
	mu   sync.Mutex
	pool [CopyStreams]sharedStream
	next int // the pool entry the next queue takes
}

// sharedStream is a stream of the pool and how many open queues use it (0: none made).
type sharedStream struct {
	s    device.Stream
	refs int
}

// take returns the next stream of the pool, made on first use, and its index.
func (c *deviceCopier) take() (device.Stream, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.next
	e := &c.pool[i]
	if e.refs == 0 {
		s, err := c.g.NewStream()
		if err != nil {
			return 0, 0, fmt.Errorf("copy stream: %w", err)
		}
		e.s = s
	}
	e.refs++
	c.next = (i + 1) % CopyStreams
	return e.s, i, nil
}

// release drops a queue's use of pool entry i; the last one destroys the stream.
func (c *deviceCopier) release(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &c.pool[i]
	if e.refs--; e.refs > 0 {
		return nil
	}
	return c.g.DestroyStream(e.s)
}

func (c *deviceCopier) AllocStage(n uint64) (Stage, error) {
	host, dev, err := c.g.AllocMapped(n)
	if err != nil {
		return Stage{}, fmt.Errorf("staging memory: %w", err)
	}
	return Stage{Host: unsafe.Slice((*byte)(host), n), Dev: dev}, nil
}

func (c *deviceCopier) FreeStage(s Stage) error {
	if len(s.Host) == 0 {
		return nil
	}
	return c.g.FreeMapped(unsafe.Pointer(&s.Host[0]))
}

func (c *deviceCopier) NewQueue() (CopyQueue, error) {
	s, i, err := c.take()
	if err != nil {
		return nil, err
	}
	host, dev, err := c.g.AllocMapped(8)
	if err != nil {
		_ = c.release(i)
		return nil, fmt.Errorf("copy queue's done word: %w", err)
	}
	return &deviceQueue{g: c.g, c: c, pooled: i, s: s, done: (*uint64)(host), doneDev: dev}, nil
}

// deviceQueue is a sequence of operations on a stream (of its copier's pool, or its own)
// that each end by storing their number in a word of mapped host memory (done), so that
// Wait reads a word instead of calling the driver (cuStreamQuery) at every poll: the
// Ethernet transport's two threads per data socket each wait for a copy per piece. Queues
// that share a stream wait for each other's earlier copies, never for anything else. On 2xH200 across 2 simulated hosts, allgather and allreduce at
// 64-512 MiB were 3-4 % faster with the word than with cuStreamQuery polls (the mean of
// each of four groups of 24 cells: two collectives, 4 MiB and 1 MiB staging).
type deviceQueue struct {
	g       device.GPU
	c       *deviceCopier // the pool s belongs to (nil: s is the queue's own)
	pooled  int           // s's entry in c.pool
	s       device.Stream
	done    *uint64    // how many operations have finished (the stream stores it)
	doneDev device.Ptr // done as the stream addresses it
	issued  uint64     // how many operations were queued
}

func (q *deviceQueue) ToHost(dst Stage, src device.Ptr, n uint64) error {
	if err := q.g.CopyAsync(dst.Dev, src, n, q.s); err != nil {
		return err
	}
	return q.count()
}

func (q *deviceQueue) ToDevice(dst device.Ptr, src Stage, n uint64) error {
	if err := q.g.CopyAsync(dst, src.Dev, n, q.s); err != nil {
		return err
	}
	return q.count()
}

func (q *deviceQueue) Store64(dst device.Ptr, v uint64) error {
	if err := q.g.WriteValue64Async(dst, v, q.s); err != nil {
		return err
	}
	return q.count()
}

// count queues the store of the operation just queued's number into the done word.
func (q *deviceQueue) count() error {
	q.issued++
	return q.g.WriteValue64Async(q.doneDev, q.issued, q.s)
}

// Wait reads the done word until every operation queued has finished, spinning for
// copySpin and then sleeping copyNap in the kernel between reads. The sender and receiver
// threads wait here for copies of megabytes; when they spun, they took the CPUs from the
// threads moving bytes through the sockets (on 2xH200 across 2 simulated hosts, with a
// compiler running beside, a receiver with a whole piece waiting in its socket read it
// 3-4 ms late, and a woken sender issued its copy up to 2 ms late). A failed copy never
// stores its number: every 64 reads the stream is asked for its error.
func (q *deviceQueue) Wait(timeout time.Duration) error {
	start := time.Now()
	for i := 0; ; i++ {
		if atomic.LoadUint64(q.done) >= q.issued {
			return nil
		}
		if i&63 == 63 {
			if _, err := q.g.StreamIdle(q.s); err != nil {
				return err
			}
		}
		waited := time.Since(start)
		if waited > timeout {
			return fmt.Errorf("copies did not finish within %v (%d of %d done)", timeout, atomic.LoadUint64(q.done), q.issued)
		}
		if waited >= copySpin {
			nap(copyNap)
		}
	}
}

// How a copy queue waits: polls for copySpin (a copy of up to MinChunk bytes, which
// the proxy waits for itself, takes less), then polls every copyNap.
const (
	copySpin = 20 * time.Microsecond
	copyNap  = 20 * time.Microsecond
)

// nap sleeps in the kernel (nanosleep), not in Go's timers, which wake in whole
// milliseconds when the runtime's poller sleeps.
func nap(d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	_ = unix.Nanosleep(&ts, nil)
}

func (q *deviceQueue) Close() error {
	var err error
	if q.c != nil {
		err = q.c.release(q.pooled)
	} else {
		err = q.g.DestroyStream(q.s)
	}
	if ferr := q.g.FreeMapped(unsafe.Pointer(q.done)); err == nil {
		err = ferr
	}
	return err
}
