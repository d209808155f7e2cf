package ib

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/internal/rdma"
)

// TestIBPortChannelsMoveEveryByte runs the port-channel protocol over InfiniBand on the
// stand-in verbs: RDMA writes split into pieces (64 KiB here), signals by fetch-and-add
// or, without atomics, by an RDMA write of the token value; every byte checked, tokens in
// GPU and in host memory.
func TestIBPortChannelsMoveEveryByte(t *testing.T) {
	old := ibMaxWrite
	ibMaxWrite = 64 << 10
	t.Cleanup(func() { ibMaxWrite = old })
	for _, c := range []struct {
		atomics, hostTokens bool
	}{{true, false}, {false, false}, {true, true}, {false, true}} {
		t.Run(fmt.Sprintf("Atomics=%v/HostTokens=%v", c.atomics, c.hostTokens), func(t *testing.T) {
			channelstest.UseHostTokens(t, c.hostTokens)
			bs := channelstest.NewBoots(t, 2)
			fabric := channelstest.NewIBFabric(channelstest.NewMemSpace())
			ranks := channelstest.NewStandinsOn(t, channelstest.BootsOf(bs), 2*(1<<20)+64, c.hostTokens, fabric.Space, func(r int) channels.MeshOptions {
				return ibOpts(Mode, channelstest.FakeVerbs{F: fabric, Atomics: c.atomics})
			})
			for r, s := range ranks {
				if tr := s.M.Conns[1-r].Transport(); tr != Transport {
					t.Fatalf("rank %d connects over %v", r, tr)
				}
			}
			for k, size := range []uint64{1, 8, 4097, 64 << 10, 64<<10 + 1, 1<<20 - 3} {
				if err := channelstest.Exchange(ranks, func(r int) channels.Bootstrap { return bs[r] }, k, size, uint64(k), 3); err != nil {
					t.Fatal(err)
				}
			}
			adds, writes := fabric.Count("fetch-add"), fabric.Count("write")
			if c.atomics && adds != 2*6 || !c.atomics && adds != 0 {
				t.Errorf("%d fetch-and-adds for 12 signals with atomics %v", adds, c.atomics)
			}
			// 1+1+1+1+2+16 pieces per direction, plus the signals when they are writes.
			if want := 2 * 22; c.atomics && writes != want || !c.atomics && writes != want+12 {
				t.Errorf("%d RDMA writes", writes)
			}
		})
	}
}

// TestIBAutoModeChoosesPerHost: four ranks on two simulated hosts. With an HCA on every
// rank, auto mode connects the hosts over InfiniBand; when host b has none, over Ethernet.
// Ranks of one host keep CUDA IPC either way.
func TestIBAutoModeChoosesPerHost(t *testing.T) {
	for _, bHasHCA := range []bool{true, false} {
		t.Run(fmt.Sprintf("HostBHasHCA=%v", bHasHCA), func(t *testing.T) {
			bs := channelstest.NewBoots(t, 4)
			fabric := channelstest.NewIBFabric(channelstest.NewMemSpace())
			hosts := []string{"a", "a", "b", "b"}
			ranks := channelstest.NewStandinsOn(t, channelstest.BootsOf(bs), 4*(256<<10)+64, false, fabric.Space, func(r int) channels.MeshOptions {
				o := ibOpts(channels.ModeAuto, channelstest.FakeVerbs{F: fabric, Atomics: true, Missing: hosts[r] == "b" && !bHasHCA})
				o.HostID = hosts[r]
				return o
			})
			between := Transport
			if !bHasHCA {
				between = ethernet.Transport
			}
			want := "hosts=2 within=cudaipc between=" + between.String()
			if got := channels.DescribeTransports(ranks[3].M.Endpoints, ranks[3].M.PairTransport); got != want {
				t.Errorf("transports %q, want %q", got, want)
			}
			if tr := ranks[0].M.Conns[2].Transport(); tr != between {
				t.Errorf("rank 0 to rank 2: %v, want %v", tr, between)
			}
			if err := channelstest.Exchange(ranks, func(r int) channels.Bootstrap { return bs[r] }, 0, 256<<10-1, 0, 0); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestIBRemoteAccessError: a put the peer's HCA refuses (a wrong key) fails the flush
// with the completion's status, naming the peer.
func TestIBRemoteAccessError(t *testing.T) {
	bs := channelstest.NewBoots(t, 2)
	fabric := channelstest.NewIBFabric(channelstest.NewMemSpace())
	ranks := channelstest.NewStandinsOn(t, channelstest.BootsOf(bs), 1<<16, false, fabric.Space, func(r int) channels.MeshOptions {
		return ibOpts(Mode, channelstest.FakeVerbs{F: fabric, Atomics: true})
	})
	p := ranks[0].M.Proxy()
	bad := *p.Channels()[0]
	bad.Dst.Key ^= 0xffff
	id, err := p.AddChannel(&bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Handle(channels.MakeTrigger(channels.TriggerData, id, 0, 0, 64)); err != nil {
		t.Fatal(err) // posted: the HCA reports the failure in the completion
	}
	err = p.Handle(channels.MakeTrigger(channels.TriggerSync, id, 0, 0, 0))
	if err == nil || !strings.Contains(err.Error(), "remote access error") || !strings.Contains(err.Error(), "rank 1") {
		t.Errorf("flush after a refused write: %v", err)
	}
}

// TestIBForcedWithoutHCA: --transport ib on a rank without an HCA fails with ErrNoHCA.
func TestIBForcedWithoutHCA(t *testing.T) {
	bs := channelstest.NewBoots(t, 2)
	fabric := channelstest.NewIBFabric(channelstest.NewMemSpace())
	channelstest.OnRanks(t, 2, func(r int) error {
		_, err := channels.NewMesh(channelstest.NewMemGPU(r, fabric.Space), bs[r], ibOpts(Mode, channelstest.FakeVerbs{F: fabric, Missing: true}))
		if err == nil || !strings.Contains(err.Error(), "no usable InfiniBand HCA") || !strings.Contains(err.Error(), "found no InfiniBand device") {
			return fmt.Errorf("got %v", err)
		}
		return nil
	})
}

// countingVerbs counts how often a mesh looked for an HCA.
type countingVerbs struct{ opens *atomic.Int32 }

func (v countingVerbs) Open(string) (rdma.Device, error) {
	v.opens.Add(1)
	return nil, fmt.Errorf("no HCA here")
}

// TestAutoModeOneHostLeavesIBAlone: a job on one host never loads the verbs library in
// auto mode (nothing could use it), and still connects by CUDA IPC.
func TestAutoModeOneHostLeavesIBAlone(t *testing.T) {
	var opens atomic.Int32
	bs := channelstest.NewBoots(t, 2)
	ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 4096, false, func(r int) channels.MeshOptions {
		return ibOpts(channels.ModeAuto, countingVerbs{&opens})
	})
	if n := opens.Load(); n != 0 {
		t.Errorf("the HCA was looked for %d times", n)
	}
	if tr := ranks[0].M.Conns[1].Transport(); tr != cudaipc.Transport {
		t.Errorf("rank 0 to rank 1: %v", tr)
	}
}

// TestIBAtomicsOnOneSideAndDeepQueues: signals use fetch-and-add only where both HCAs do
// atomics: with atomics on one side only, both sides signal by RDMA writes (an atomic to
// the other side would fail there). And a write cut into more pieces than the send queue
// holds (ibDepth) is posted as the queue drains, never past its depth.
func TestIBAtomicsOnOneSideAndDeepQueues(t *testing.T) {
	old := ibMaxWrite
	ibMaxWrite = 4 << 10
	t.Cleanup(func() { ibMaxWrite = old })
	const deep = 2*ibDepth*(4<<10) + 3 // pieces: twice the queue's depth, and a bit
	for _, c := range []struct {
		atomics [2]bool
		sizes   []uint64
		adds    int // fetch-and-adds, over both ranks
	}{
		{[2]bool{true, false}, []uint64{8, 4097, 64 << 10}, 0},
		{[2]bool{false, true}, []uint64{8, 4097, 64 << 10}, 0},
		{[2]bool{true, true}, []uint64{deep}, 2},
		{[2]bool{false, false}, []uint64{deep}, 0},
		{[2]bool{true, false}, []uint64{deep, 1}, 0},
	} {
		t.Run(fmt.Sprintf("Atomics=%v/Sizes=%v", c.atomics, c.sizes), func(t *testing.T) {
			bs := channelstest.NewBoots(t, 2)
			fabric := channelstest.NewIBFabric(channelstest.NewMemSpace())
			ranks := channelstest.NewStandinsOn(t, channelstest.BootsOf(bs), 2*deep+64, false, fabric.Space, func(r int) channels.MeshOptions {
				return ibOpts(Mode, channelstest.FakeVerbs{F: fabric, Atomics: c.atomics[r]})
			})
			for k, size := range c.sizes {
				if err := channelstest.Exchange(ranks, func(r int) channels.Bootstrap { return bs[r] }, k, size, uint64(k), 3); err != nil {
					t.Fatal(err)
				}
			}
			if adds := fabric.Count("fetch-add"); adds != c.adds {
				t.Errorf("%d fetch-and-adds, want %d", adds, c.adds)
			}
			pieces := 0
			for _, size := range c.sizes {
				pieces += int((size + 4<<10 - 1) / (4 << 10))
			}
			want := 2 * pieces // per direction
			if c.adds == 0 {
				want += 2 * len(c.sizes) // the signals, as writes
			}
			if writes := fabric.Count("write"); writes != want {
				t.Errorf("%d RDMA writes, want %d", writes, want)
			}
		})
	}
}

// TestIBStopProxyDrains: signals the proxy posted are completed before StopProxy returns
// (a barrier after it must not leave a write on its way to a peer that closes its queue
// pair).
func TestIBStopProxyDrains(t *testing.T) {
	bs := channelstest.NewBoots(t, 2)
	fabric := channelstest.NewIBFabric(channelstest.NewMemSpace())
	ranks := channelstest.NewStandinsOn(t, channelstest.BootsOf(bs), 4096, false, fabric.Space, func(r int) channels.MeshOptions {
		return ibOpts(Mode, channelstest.FakeVerbs{F: fabric, Atomics: true})
	})
	const signals = ibDepth / 2
	for k := 0; k < signals; k++ {
		if _, err := ranks[0].Ports[1].Push(channels.TriggerFlag, 0, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := ranks[0].M.StopProxy(); err != nil {
		t.Fatal(err)
	}
	if n := ranks[0].M.Conns[1].(*ibConn).outstanding; n != 0 {
		t.Fatalf("%d work requests outstanding after StopProxy", n)
	}
	for k := 0; k < signals; k++ {
		if err := ranks[1].Ports[0].Wait(); err != nil {
			t.Fatalf("signal %d: %v", k+1, err)
		}
	}
}
