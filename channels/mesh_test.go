package channels_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ib"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

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
		old := channels.ShmDir
		channels.ShmDir = t.TempDir() // a test must not depend on /dev/shm; any file can be mapped
		t.Cleanup(func() { channels.ShmDir = old })
	}
	const n = 4
	bs := channelstest.NewBoots(t, n)
	space := channelstest.NewMemSpace()
	meshes := make([]*channels.Mesh, n)
	bufs := make([]*channels.Buffer, n)
	local := make([]device.Ptr, n)
	mem := make([][]channels.MemoryChannelHandle, n)
	port := make([][]channels.PortChannelHandle, n)
	gpus := make([]*channelstest.MemGPU, n)
	channelstest.OnRanks(t, n, func(r int) error {
		gpus[r] = channelstest.NewMemGPU(r, space)
		m, err := channels.NewMesh(gpus[r], bs[r], channels.MeshOptions{Mode: cudaipc.Mode, Timeout: 20 * time.Second, Hostname: "node"})
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
		var opts []channels.PortOption
		if !deviceTokens {
			opts = append(opts, channels.HostTokens)
		}
		port[r], err = m.PortChannels(bufs[r], local[r], 1024, opts...)
		return err
	})
	if t.Failed() {
		return
	}
	if left, _ := os.ReadDir(channels.ShmDir); !deviceTokens && len(left) != 0 {
		t.Errorf("token files left in %s after set-up: %v", channels.ShmDir, left)
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
			chans := meshes[r].Proxy().Channels()
			if deviceTokens && uint64(chans[pc.ID].Token.Ptr()) != backPort.Sem.Inbound {
				t.Errorf("rank %d proxy signals %v, rank %d waits on %x", r, chans[pc.ID].Token.Ptr(), p, backPort.Sem.Inbound)
			}
			if !deviceTokens {
				// The proxy's CPU store must land in the word p's GPU polls: same offset in
				// p's token file, seen through p's own mapping.
				devs, maps := meshes[p].HostTokenDevs(), meshes[p].HostTokenMaps()
				off := backPort.Sem.Inbound - uint64(devs[p])
				value := uint64(1000*r + p + 1)
				atomic.StoreUint64((*uint64)(chans[pc.ID].Token.Host), value)
				if got := atomic.LoadUint64((*uint64)(unsafe.Pointer(&maps[p][off]))); got != value {
					t.Errorf("rank %d proxy stored %d, rank %d's token at offset %d reads %d", r, value, p, off, got)
				}
				if chans[pc.ID].Token.Ptr() != meshes[r].HostTokenDevs()[p].Add(off) {
					t.Errorf("rank %d proxy's stream write goes to %v, want %v", r, chans[pc.ID].Token.Ptr(), meshes[r].HostTokenDevs()[p].Add(off))
				}
			}
			if chans[pc.ID].Dst.Ptr() != bufs[p].Ptrs[p] || chans[pc.ID].Dst.Size != 4096 || chans[pc.ID].Src.Size != 1024 || chans[pc.ID].Conn.Transport() != cudaipc.Transport {
				t.Errorf("rank %d proxy channel %d: %+v", r, pc.ID, chans[pc.ID])
			}
		}
	}
	channelstest.OnRanks(t, n, func(r int) error { return meshes[r].Close() })
	for r, g := range gpus {
		if leaks := g.Leaks(); leaks != "" {
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
	bs := channelstest.NewBoots(t, 2)
	space := channelstest.NewMemSpace()
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			g := channelstest.NewMemGPU(r, space)
			g.NoPeer = true
			_, errs[r] = channels.NewMesh(g, bs[r], channels.MeshOptions{Mode: cudaipc.Mode, Timeout: 20 * time.Second, Hostname: "node"})
		}(r)
	}
	wg.Wait()
	for r, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "cannot access GPU") || !strings.Contains(err.Error(), "0000:00:0") {
			t.Errorf("rank %d: %v, want an error naming both GPUs", r, err)
		}
	}
}

func TestMeshRefusesIBWithoutHCA(t *testing.T) {
	space := channelstest.NewMemSpace()
	bs := channelstest.NewBoots(t, 2)
	channelstest.OnRanks(t, 2, func(r int) error {
		_, err := channels.NewMesh(channelstest.NewMemGPU(r, space), bs[r], channels.MeshOptions{Mode: ib.Mode, Timeout: 20 * time.Second, Hostname: "node"})
		if !errors.Is(err, ib.ErrNoHCA) {
			return fmt.Errorf("--transport ib without an InfiniBand layer: %v, want ErrNoHCA", err)
		}
		return nil
	})
}
