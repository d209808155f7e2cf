package channels_test

import (
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
)

// TestNetworkHostTokens: three ranks on two simulated hosts (a, a, b). Port channels made
// with NetworkHostTokens wait on host-memory tokens for the peers over Ethernet and on
// GPU-memory tokens for the peer over CUDA IPC; puts and signals still reach every peer.
func TestNetworkHostTokens(t *testing.T) {
	channelstest.UseHostTokens(t, true)
	bs := channelstest.NewBoots(t, 3)
	hosts := []string{"a", "a", "b"}
	ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 3*(1<<20)+64, false, func(r int) channels.MeshOptions {
		o := ethOpts(channels.ModeAuto, "machine")
		o.HostID = hosts[r]
		return o
	})
	channelstest.OnRanks(t, 3, func(r int) error {
		return ranks[r].ConnectPorts(channels.NetworkHostTokens)
	})
	if t.Failed() {
		return
	}
	within := func(p, base uint64, size int) bool { return p >= base && p < base+uint64(size) }
	for r, s := range ranks {
		m := s.M
		if m.HostTokenDevs() == nil {
			t.Fatalf("rank %d: no host tokens set up", r)
		}
		tokBytes := m.NRanks * m.Opts.MaxSemaphores * 8
		for _, p := range m.Peers() {
			in := s.Ports[p].H.Sem.Inbound
			inHost := within(in, uint64(m.HostTokenDevs()[r]), tokBytes)
			inGPU := within(in, uint64(m.Tokens()), tokBytes)
			if wantHost := m.Conns[p].Transport() != cudaipc.Transport; inHost != wantHost || inGPU == wantHost {
				t.Errorf("rank %d: token of peer %d (%v) in host memory %v, in GPU memory %v", r, p, m.Conns[p].Transport(), inHost, inGPU)
			}
		}
	}
	for k, size := range []uint64{8, 5000, 300 << 10} {
		if err := channelstest.Exchange(ranks, func(r int) channels.Bootstrap { return bs[r] }, k, size, 1, 3); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNetworkHostTokensOneHost: on one host (CUDA IPC only) NetworkHostTokens changes
// nothing: no token files, tokens in GPU memory.
func TestNetworkHostTokensOneHost(t *testing.T) {
	channelstest.UseHostTokens(t, true)
	bs := channelstest.NewBoots(t, 2)
	ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 4096, false, func(r int) channels.MeshOptions { return ethOpts(channels.ModeAuto, "machine") })
	channelstest.OnRanks(t, 2, func(r int) error {
		s := ranks[r]
		hs, err := s.M.PortChannels(s.DstAll, s.Src, s.Bytes, channels.NetworkHostTokens)
		if err != nil {
			return err
		}
		if s.M.HostTokenDevs() != nil {
			t.Errorf("rank %d: host tokens set up on one host", r)
		}
		if in, base := hs[0].Sem.Inbound, uint64(s.M.Tokens()); in < base || in >= base+uint64(2*s.M.Opts.MaxSemaphores*8) {
			t.Errorf("rank %d: token %x outside the GPU token array at %x", r, in, base)
		}
		return nil
	})
}
