package channelstest

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Standin is one rank of a test job on stand-in GPUs: its mesh, and a source and a
// destination buffer shared with every rank.
type Standin struct {
	G        *MemGPU
	M        *channels.Mesh
	Src, Dst device.Ptr
	DstAll   *channels.Buffer
	Bytes    uint64
	head     atomic.Uint64 // the FIFO's head: the test is the only producer
	Ports    map[int]*CPUPort
}

// NewStandins builds a mesh per rank on bootstraps boots, with opts(r), buffers of size
// bytes, and one port channel per peer (host tokens if asked).
func NewStandins(t testing.TB, boots []channels.Bootstrap, size uint64, hostTokens bool, opts func(r int) channels.MeshOptions) []*Standin {
	t.Helper()
	return NewStandinsOn(t, boots, size, hostTokens, NewMemSpace(), opts)
}

// NewStandinsOn is newStandins with the stand-in GPUs' memory in space.
func NewStandinsOn(t testing.TB, boots []channels.Bootstrap, size uint64, hostTokens bool, space *MemSpace, opts func(r int) channels.MeshOptions) []*Standin {
	t.Helper()
	n := len(boots)
	ranks := make([]*Standin, n)
	OnRanks(t, n, func(r int) error {
		s := &Standin{G: NewMemGPU(r, space), Bytes: size, Ports: map[int]*CPUPort{}}
		ranks[r] = s
		var err error
		if s.M, err = channels.NewMesh(s.G, boots[r], opts(r)); err != nil {
			return err
		}
		return s.SetUp(hostTokens)
	})
	t.Cleanup(func() {
		OnRanks(t, n, func(r int) error {
			if ranks[r] == nil || ranks[r].M == nil {
				return nil
			}
			if err := ranks[r].M.Close(); err != nil {
				return err
			}
			if leaks := ranks[r].G.Leaks(); leaks != "" {
				return fmt.Errorf("Close left %s", leaks)
			}
			return nil
		})
	})
	if t.Failed() {
		t.FailNow()
	}
	return ranks
}

// SetUp allocates and registers the rank's buffers and shares them with every rank.
func (s *Standin) SetUp(hostTokens bool) error {
	var err error
	if s.Src, err = s.M.Alloc(s.Bytes); err != nil {
		return err
	}
	if s.Dst, err = s.M.Alloc(s.Bytes); err != nil {
		return err
	}
	if s.DstAll, err = s.M.Share(s.Dst, s.Bytes); err != nil {
		return err
	}
	var opts []channels.PortOption
	if hostTokens {
		opts = append(opts, channels.HostTokens)
	}
	return s.ConnectPorts(opts...)
}

// ConnectPorts makes a port channel per peer from s.src to the peers' s.dstAll, and makes
// them the ones s.ports drives.
func (s *Standin) ConnectPorts(opts ...channels.PortOption) error {
	hs, err := s.M.PortChannels(s.DstAll, s.Src, s.Bytes, opts...)
	if err != nil {
		return err
	}
	for i, p := range s.M.Peers() {
		s.Ports[p] = &CPUPort{g: s.G, H: hs[i], head: &s.head, Timeout: 20 * time.Second, failed: s.M.DeviceError}
	}
	return nil
}

// Pattern is the byte rank `from` puts at index i of a transfer of size bytes in round k.
// Its higher bytes fold i, so that bytes landed at the wrong offset by a multiple of 256
// (a part or piece misplaced) differ from the right ones.
func Pattern(from, to, k int, size uint64, i uint64) byte {
	fold := i ^ i>>8 ^ i>>16 ^ i>>24
	return byte(fold*7 + uint64(from)*31 + uint64(to)*5 + uint64(k)*3 + size)
}

// Exchange has every rank put size bytes to every peer (at srcOff in its source, dstOff
// + slot*size in the peer's destination, a slot per sender) with a signal, wait for every
// peer's signal, check every received byte and the guard bytes around them, and flush.
// It returns the first problem. A rank that fails stops the others' waits at once (as a
// job ends when one of its processes fails), so that a broken protocol fails the test
// fast, not at the other ranks' timeouts.
func Exchange(ranks []*Standin, boot func(r int) channels.Bootstrap, k int, size, srcOff, dstOff uint64) error {
	n := len(ranks)
	errs := make([]error, n)
	done := make(chan int, n)
	for r := range ranks {
		go func(r int) {
			defer func() { done <- r }()
			errs[r] = ranks[r].Exchange(boot(r), k, size, srcOff, dstOff)
			if errs[r] != nil {
				for o := range ranks {
					if o != r {
						ranks[o].M.ConnectionFailed(fmt.Errorf("rank %d failed: %w", r, errs[r]))
					}
				}
			}
		}(r)
	}
	for range ranks {
		<-done
	}
	for r, err := range errs {
		if err != nil {
			return fmt.Errorf("rank %d, round %d, %d bytes: %w", r, k, size, err)
		}
	}
	return nil
}

// Exchange runs round k on this rank: it puts size bytes to every peer and checks what
// every peer put here.
func (s *Standin) Exchange(boot channels.Bootstrap, k int, size, srcOff, dstOff uint64) error {
	me, peers := s.M.Rank, s.M.Peers()
	dst := s.G.Space.Bytes(s.Dst, s.Bytes)
	for i := range dst {
		dst[i] = Poison
	}
	src := s.G.Space.Bytes(s.Src, s.Bytes)
	if err := boot.Barrier(); err != nil { // every destination poisoned before anyone puts
		return err
	}
	for _, p := range peers {
		for i := uint64(0); i < size; i++ {
			src[srcOff+i] = Pattern(me, p, k, size, i)
		}
		if err := s.Ports[p].PutWithSignal(dstOff+uint64(me)*size, srcOff, size); err != nil {
			return err
		}
		// A flush returns once the source may change: spoil it right after.
		if err := s.Ports[p].Flush(); err != nil {
			return err
		}
		for i := uint64(0); i < size; i++ {
			src[srcOff+i] = ^Pattern(me, p, k, size, i)
		}
	}
	for _, p := range peers {
		if err := s.Ports[p].Wait(); err != nil {
			return err
		}
	}
	// As a run checks after its kernels: a failed work request, a refused message.
	if err := s.M.DeviceError(); err != nil {
		return err
	}
	for _, p := range peers {
		at := dstOff + uint64(p)*size
		for i := uint64(0); i < size; i++ {
			if want := Pattern(p, me, k, size, i); dst[at+i] != want {
				return fmt.Errorf("byte %d from rank %d is %#x, want %#x", i, p, dst[at+i], want)
			}
		}
	}
	// Around the slots, and in this rank's own slot, nothing may have been written.
	own := dst[dstOff+uint64(me)*size:][:size]
	if dstOff > 0 && dst[dstOff-1] != Poison || bytes.Count(own, []byte{Poison}) != len(own) {
		return fmt.Errorf("bytes outside the peers' slots were overwritten")
	}
	if end := dstOff + uint64(len(peers)+1)*size; end < s.Bytes && dst[end] != Poison {
		return fmt.Errorf("the byte after the last slot was overwritten")
	}
	return boot.Barrier()
}

// UseHostTokens prepares a subtest whose port channels keep their tokens in host memory:
// token files in a directory of its own, and a skip under the race detector, which does not
// see the synchronisation through them (the test runs without -race).
func UseHostTokens(t *testing.T, on bool) {
	if !on {
		return
	}
	if RaceEnabled {
		t.Skip("host tokens synchronise through an mmap'd file, which the race detector does not see; this runs without -race")
	}
	old := channels.ShmDir
	channels.ShmDir = t.TempDir()
	t.Cleanup(func() { channels.ShmDir = old })
}

// BootsOf returns the bootstraps as channels.Bootstrap values.
func BootsOf(bs []*bootstrap.TCPBootstrap) []channels.Bootstrap {
	out := make([]channels.Bootstrap, len(bs))
	for i, b := range bs {
		out[i] = b
	}
	return out
}

// Poison is the byte destinations hold before a round: a byte not written reads as it.
const Poison = 0xEE
