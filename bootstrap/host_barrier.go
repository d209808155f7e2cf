package bootstrap

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hostBarrierSlot is the bytes each rank's arrival counter takes: a cache line of its own.
const hostBarrierSlot = 64

// HostBarrier is a barrier for ranks that share one host, through a shared-memory file: each
// rank bumps its own counter and spins until every counter has caught up. A wait costs about
// a microsecond, against tens over TCP, which is what nccl-tests' blocking mode (-z 1: sync
// and barrier every iteration) measures. It does not notice a dead peer until its timeout.
type HostBarrier struct {
	mem     []byte
	n       int
	rank    int
	epoch   uint64
	timeout time.Duration
}

// NewHostBarrier makes a host barrier for every rank of b when all of them run on one host
// (hostnames, as allgathered, are equal), and returns nil with no error otherwise: callers
// then keep b.Barrier. dir is a tmpfs every rank can open ("" = /dev/shm). Every rank must
// call it (it is a collective).
func NewHostBarrier(b *TCPBootstrap, hostname, dir string) (*HostBarrier, error) {
	if dir == "" {
		dir = "/dev/shm"
	}
	hosts, err := b.AllGather([]byte(hostname))
	if err != nil {
		return nil, err
	}
	for _, h := range hosts {
		if string(h) != hostname {
			return nil, nil
		}
	}
	// Rank 0 names the file; it creates it and the others map it after a barrier.
	var tag [8]byte
	var tagErr error
	if b.rank == 0 {
		_, tagErr = rand.Read(tag[:])
	}
	tags, err := b.AllGather(tag[:])
	if err != nil {
		return nil, err
	}
	if tagErr != nil {
		return nil, b.errorf("host barrier: %w", tagErr)
	}
	path := filepath.Join(dir, "mscclpp-bench-barrier-"+hex.EncodeToString(tags[0]))
	size := b.nranks * hostBarrierSlot
	var createErr error
	if b.rank == 0 {
		createErr = createZeroed(path, size)
	}
	if err := b.Barrier(); err != nil {
		return nil, err
	}
	if createErr != nil {
		return nil, b.errorf("host barrier: %w", createErr)
	}
	mem, mapErr := mapShared(path, size)
	// Everyone has tried to map it: the name can go (on failure too, so no file is left).
	if err := b.Barrier(); err != nil {
		return nil, err
	}
	if b.rank == 0 {
		os.Remove(path)
	}
	if mapErr != nil {
		return nil, b.errorf("host barrier: %w", mapErr)
	}
	return &HostBarrier{mem: mem, n: b.nranks, rank: b.rank, timeout: b.timeout}, nil
}

func createZeroed(path string, size int) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := f.Truncate(int64(size)); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

func mapShared(path string, size int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	mem, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	return mem, nil
}

func (h *HostBarrier) slot(r int) *uint64 {
	return (*uint64)(unsafe.Pointer(&h.mem[r*hostBarrierSlot]))
}

// Wait returns once every rank has called Wait as many times as this one, or an error
// naming the ranks still missing after the bootstrap's timeout.
func (h *HostBarrier) Wait() error {
	h.epoch++
	atomic.StoreUint64(h.slot(h.rank), h.epoch)
	var start time.Time
	for r, spins := 0, 0; r < h.n; {
		if atomic.LoadUint64(h.slot(r)) >= h.epoch {
			r++
			continue
		}
		spins++
		if spins&1023 != 0 {
			continue
		}
		if start.IsZero() {
			start = time.Now()
		} else if time.Since(start) > h.timeout {
			return fmt.Errorf("bootstrap: rank %d: host barrier %d: ranks %v did not arrive within %v", h.rank, h.epoch, h.missing(), h.timeout)
		}
		runtime.Gosched()
	}
	return nil
}

func (h *HostBarrier) missing() []int {
	var out []int
	for r := 0; r < h.n; r++ {
		if atomic.LoadUint64(h.slot(r)) < h.epoch {
			out = append(out, r)
		}
	}
	return out
}

// Close unmaps the shared memory.
func (h *HostBarrier) Close() error {
	if h == nil || h.mem == nil {
		return nil
	}
	err := unix.Munmap(h.mem)
	h.mem = nil
	return err
}
