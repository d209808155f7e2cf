package channels

import (
	"errors"
	"fmt"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/bootstrap/bootstraptest"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// newBoots starts n connected bootstraps in this process.
func newBoots(t testing.TB, n int) []*bootstrap.TCPBootstrap {
	t.Helper()
	return bootstraptest.Loopback(t, n, 10*time.Second)
}

// onRanks runs fn on n ranks concurrently and fails the test on any error, or when the
// ranks have not all returned within a minute.
func onRanks(t testing.TB, n int, fn func(r int) error) {
	t.Helper()
	for r, err := range bounded.Ranks(t, n, time.Minute, fn) {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// TestMeshChannelsPairUp builds a 4-rank mesh and checks that every channel's semaphore
// writes exactly the token its peer's matching channel waits on, and that puts target the
// peer's buffer; with port-channel tokens in GPU memory and in shared host memory.
func TestMeshChannelsPairUp(t *testing.T) {
	for _, deviceTokens := range []bool{true, false} {
		t.Run(fmt.Sprintf("DeviceTokens=%v", deviceTokens), func(t *testing.T) { testMeshChannelsPairUp(t, deviceTokens) })
	}
}

func testMeshChannelsPairUp(t *testing.T, deviceTokens bool) {
	if !deviceTokens {
		old := ShmDir
		ShmDir = t.TempDir() // a test must not depend on /dev/shm; any file can be mapped
		t.Cleanup(func() { ShmDir = old })
	}
	const n = 4
	bs := newBoots(t, n)
	space := newMemSpace()
	meshes := make([]*Mesh, n)
	bufs := make([]*Buffer, n)
	local := make([]device.Ptr, n)
	mem := make([][]MemoryChannelHandle, n)
	port := make([][]PortChannelHandle, n)
	gpus := make([]*memGPU, n)
	onRanks(t, n, func(r int) error {
		gpus[r] = newMemGPU(r, space)
		m, err := NewMesh(gpus[r], bs[r], MeshOptions{Mode: ModeNVLink, Timeout: time.Second, Hostname: "node"})
		if err != nil {
			return err
		}
		meshes[r] = m
		if local[r], err = m.Alloc(1024); err != nil {
			return err
		}
		dst, err := m.Alloc(4096)
		if err != nil {
			return err
		}
		if bufs[r], err = m.Share(dst, 4096); err != nil {
			return err
		}
		if mem[r], err = m.MemoryChannels(bufs[r], local[r]); err != nil {
			return err
		}
		var opts []PortOption
		if !deviceTokens {
			opts = append(opts, HostTokens)
		}
		port[r], err = m.PortChannels(bufs[r], local[r], 1024, opts...)
		return err
	})
	if t.Failed() {
		return
	}
	if left, _ := os.ReadDir(ShmDir); !deviceTokens && len(left) != 0 {
		t.Errorf("token files left in %s after set-up: %v", ShmDir, left)
	}
	for r := 0; r < n; r++ {
		peers := meshes[r].Peers()
		if len(mem[r]) != n-1 || len(port[r]) != n-1 {
			t.Fatalf("rank %d: %d memory and %d port channels, want %d", r, len(mem[r]), len(port[r]), n-1)
		}
		for i, p := range peers {
			c := mem[r][i]
			if int(c.Peer) != p || c.Remote != uint64(bufs[p].Ptrs[p]) || c.Local != uint64(local[r]) {
				t.Errorf("rank %d channel to %d: %+v", r, p, c)
			}
			// find the peer's channel back to r
			back := mem[p][indexOf(meshes[p].Peers(), r)]
			if c.Sem.RemoteInbound != back.Sem.Inbound {
				t.Errorf("rank %d signals %x, rank %d waits on %x", r, c.Sem.RemoteInbound, p, back.Sem.Inbound)
			}
			if c.Sem.Inbound == c.Sem.Expected || c.Sem.Inbound == back.Sem.Inbound {
				t.Errorf("rank %d channel to %d shares a token: %+v / %+v", r, p, c.Sem, back.Sem)
			}
			pc := port[r][i]
			backPort := port[p][indexOf(meshes[p].Peers(), r)]
			if pc.Sem.Inbound == c.Sem.Inbound {
				t.Errorf("rank %d: port and memory channel to %d share a semaphore", r, p)
			}
			// the proxy of r writes the token p's port channel waits on
			chans := *meshes[r].proxy.channels.Load()
			if deviceTokens && uint64(chans[pc.ID].Token.Ptr()) != backPort.Sem.Inbound {
				t.Errorf("rank %d proxy signals %v, rank %d waits on %x", r, chans[pc.ID].Token.Ptr(), p, backPort.Sem.Inbound)
			}
			if !deviceTokens {
				// The proxy's CPU store must land in the word p's GPU polls: same offset in
				// p's token file, seen through p's own mapping.
				ht := meshes[p].hostTok
				off := backPort.Sem.Inbound - uint64(ht.devs[p])
				value := uint64(1000*r + p + 1)
				atomic.StoreUint64((*uint64)(chans[pc.ID].Token.Host), value)
				if got := atomic.LoadUint64((*uint64)(unsafe.Pointer(&ht.maps[p][off]))); got != value {
					t.Errorf("rank %d proxy stored %d, rank %d's token at offset %d reads %d", r, value, p, off, got)
				}
				if chans[pc.ID].Token.Ptr() != meshes[r].hostTok.devs[p].Add(off) {
					t.Errorf("rank %d proxy's stream write goes to %v, want %v", r, chans[pc.ID].Token.Ptr(), meshes[r].hostTok.devs[p].Add(off))
				}
			}
			if chans[pc.ID].Dst.Ptr() != bufs[p].Ptrs[p] || chans[pc.ID].Dst.Size != 4096 || chans[pc.ID].Src.Size != 1024 || chans[pc.ID].Conn.Transport() != TransportCUDAIPC {
				t.Errorf("rank %d proxy channel %d: %+v", r, pc.ID, chans[pc.ID])
			}
		}
	}
	onRanks(t, n, func(r int) error { return meshes[r].Close() })
	for r, g := range gpus {
		if leaks := g.leaks(); leaks != "" {
			t.Errorf("rank %d: Close left %s", r, leaks)
		}
	}
}

func indexOf(xs []int, v int) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}

func TestMeshRefusesUnreachablePeer(t *testing.T) {
	bs := newBoots(t, 2)
	space := newMemSpace()
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			g := newMemGPU(r, space)
			g.noPeer = true
			_, errs[r] = NewMesh(g, bs[r], MeshOptions{Mode: ModeNVLink, Timeout: time.Second, Hostname: "node"})
		}(r)
	}
	wg.Wait()
	for r, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "cannot access GPU") || !strings.Contains(err.Error(), "0000:00:0") {
			t.Errorf("rank %d: %v, want an error naming both GPUs", r, err)
		}
	}
}

func TestMeshRefusesOtherHostAndIB(t *testing.T) {
	space := newMemSpace()
	_, err := newCUDAIPCConn(newMemGPU(0, space), Endpoint{Rank: 0, HostID: "a"}, Endpoint{Rank: 1, HostID: "b"}, time.Second)
	if err == nil || !strings.Contains(err.Error(), "host b") {
		t.Errorf("different hosts: %v", err)
	}
	bs := newBoots(t, 2)
	onRanks(t, 2, func(r int) error {
		_, err := NewMesh(newMemGPU(r, space), bs[r], MeshOptions{Mode: ModeIB, Timeout: time.Second, Hostname: "node"})
		if !errors.Is(err, ErrNoHCA) {
			return fmt.Errorf("--transport ib without an InfiniBand layer: %v, want ErrNoHCA", err)
		}
		return nil
	})
}
