package channels

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// ShmDir is where host tokens live: a tmpfs that every rank of the node can open.
var ShmDir = "/dev/shm"

// hostTokens are the inbound tokens of HostTokens port channels' semaphores, kept in host memory
// that the ranks of a node share (one file per rank under ShmDir, mapped by every rank of
// the node and registered with its GPU). A peer's proxy signals with a plain CPU store when its copy
// stream is idle, instead of queueing a stream write (about 7 µs less per signal); the
// waiting GPU polls its token through the mapping.
type hostTokens struct {
	gpu   device.GPU
	maps  map[int][]byte     // rank → its token file, mapped here (own rank included)
	devs  map[int]device.Ptr // rank → the same memory as this GPU addresses it
	owned string             // our file, until every rank has mapped it
}

// newHostTokens creates this rank's token file, maps the files of the ranks for which
// mapped says so (the ranks of this host) and registers them with the GPU. All ranks call
// it together; bytes is the size of one rank's token array.
func newHostTokens(g device.GPU, boot Bootstrap, bytes uint64, mapped func(rank int) bool) (_ *hostTokens, err error) {
	rank, n := boot.Rank(), boot.NRanks()
	size := (bytes + uint64(os.Getpagesize()) - 1) / uint64(os.Getpagesize()) * uint64(os.Getpagesize())
	var tag [8]byte
	if rank == 0 {
		if _, err := rand.Read(tag[:]); err != nil {
			return nil, fmt.Errorf("host tokens: %w", err)
		}
	}
	tags, err := boot.AllGather(tag[:])
	if err != nil {
		return nil, fmt.Errorf("host tokens: agree on a name: %w", err)
	}
	prefix := filepath.Join(ShmDir, "mscclpp-bench-"+hex.EncodeToString(tags[0])+"-")
	t := &hostTokens{gpu: g, maps: map[int][]byte{}, devs: map[int]device.Ptr{}}
	defer func() {
		if err != nil {
			t.close()
		}
	}()
	t.owned = fmt.Sprintf("%s%d", prefix, rank)
	if err := t.mapFile(rank, t.owned, size, true); err != nil {
		return nil, err
	}
	if err := boot.Barrier(); err != nil {
		return nil, fmt.Errorf("host tokens: %w", err)
	}
	for r := 0; r < n; r++ {
		if r != rank && mapped(r) {
			if err := t.mapFile(r, fmt.Sprintf("%s%d", prefix, r), size, false); err != nil {
				return nil, err
			}
		}
	}
	// Everyone has mapped every file: the names can go, the mappings stay.
	if err := boot.Barrier(); err != nil {
		return nil, fmt.Errorf("host tokens: %w", err)
	}
	os.Remove(t.owned)
	t.owned = ""
	return t, nil
}

func (t *hostTokens) mapFile(rank int, path string, size uint64, create bool) error {
	flags := os.O_RDWR
	if create {
		flags |= os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return fmt.Errorf("host tokens of rank %d: %w (port channels made with HostTokens keep their tokens in %s)", rank, err, ShmDir)
	}
	defer f.Close()
	if create {
		if err := f.Truncate(int64(size)); err != nil {
			return fmt.Errorf("host tokens of rank %d: %w", rank, err)
		}
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("host tokens of rank %d: mmap %s: %w", rank, path, err)
	}
	dev, err := t.gpu.HostRegister(unsafe.Pointer(&mem[0]), size)
	if err != nil {
		unix.Munmap(mem)
		return fmt.Errorf("host tokens of rank %d: %w", rank, err)
	}
	t.maps[rank], t.devs[rank] = mem, dev
	return nil
}

// word returns the CPU address of slot i of rank's token array.
func (t *hostTokens) word(rank, i int) *uint64 {
	return (*uint64)(unsafe.Pointer(&t.maps[rank][i*8]))
}

func (t *hostTokens) close() error {
	var first error
	for r, mem := range t.maps {
		if err := t.gpu.HostUnregister(unsafe.Pointer(&mem[0])); err != nil && first == nil {
			first = fmt.Errorf("host tokens of rank %d: %w", r, err)
		}
		if err := unix.Munmap(mem); err != nil && first == nil {
			first = fmt.Errorf("host tokens of rank %d: munmap: %w", r, err)
		}
	}
	t.maps, t.devs = nil, nil
	if t.owned != "" {
		os.Remove(t.owned)
		t.owned = ""
	}
	return first
}
