package channels

import (
	"testing"
)

// TestNetworkHostTokens: three ranks on two simulated hosts (a, a, b). Port channels made
// with NetworkHostTokens wait on host-memory tokens for the peers over Ethernet and on
// GPU-memory tokens for the peer over CUDA IPC; puts and signals still reach every peer.
func TestNetworkHostTokens(t *testing.T) {
	useHostTokens(t, true)
	bs := newBoots(t, 3)
	hosts := []string{"a", "a", "b"}
	ranks := newStandins(t, bootsOf(bs), 3*(1<<20)+64, false, func(r int) MeshOptions {
		o := ethOpts(ModeAuto, "machine")
		o.HostID = hosts[r]
		return o
	})
	onRanks(t, 3, func(r int) error {
		return ranks[r].connectPorts(NetworkHostTokens)
	})
	if t.Failed() {
		return
	}
	within := func(p, base uint64, size int) bool { return p >= base && p < base+uint64(size) }
	for r, s := range ranks {
		m := s.m
		if m.hostTok == nil {
			t.Fatalf("rank %d: no host tokens set up", r)
		}
		tokBytes := m.NRanks * m.Opts.MaxSemaphores * 8
		for _, p := range m.Peers() {
			in := s.ports[p].h.Sem.Inbound
			inHost := within(in, uint64(m.hostTok.devs[r]), tokBytes)
			inGPU := within(in, uint64(m.tokens), tokBytes)
			if wantHost := m.Conns[p].Transport() != TransportCUDAIPC; inHost != wantHost || inGPU == wantHost {
				t.Errorf("rank %d: token of peer %d (%v) in host memory %v, in GPU memory %v", r, p, m.Conns[p].Transport(), inHost, inGPU)
			}
		}
	}
	for k, size := range []uint64{8, 5000, 300 << 10} {
		if err := exchange(ranks, func(r int) Bootstrap { return bs[r] }, k, size, 1, 3); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNetworkHostTokensOneHost: on one host (CUDA IPC only) NetworkHostTokens changes
// nothing: no token files, tokens in GPU memory.
func TestNetworkHostTokensOneHost(t *testing.T) {
	useHostTokens(t, true)
	bs := newBoots(t, 2)
	ranks := newStandins(t, bootsOf(bs), 4096, false, func(r int) MeshOptions { return ethOpts(ModeAuto, "machine") })
	onRanks(t, 2, func(r int) error {
		s := ranks[r]
		hs, err := s.m.PortChannels(s.dstAll, s.src, s.bytes, NetworkHostTokens)
		if err != nil {
			return err
		}
		if s.m.hostTok != nil {
			t.Errorf("rank %d: host tokens set up on one host", r)
		}
		if in, base := hs[0].Sem.Inbound, uint64(s.m.tokens); in < base || in >= base+uint64(2*s.m.Opts.MaxSemaphores*8) {
			t.Errorf("rank %d: token %x outside the GPU token array at %x", r, in, base)
		}
		return nil
	})
}
