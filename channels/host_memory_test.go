package channels

import (
	"fmt"
	"strings"
	"testing"
)

// TestHostResident: two ranks put to each other at once over Ethernet (and over the
// InfiniBand stand-in) with the source, the destination or both in host-resident memory
// (ShareHost), from one byte to several staging chunks (a GPU-memory source: inline up to
// EthMinChunk, then pieces over both data sockets; a host-resident source: inline up to
// ethHostInlineMax, into GPU memory through several staging slots, then pieces); every byte and the bytes around it are
// checked the moment the signal is seen (exchange), so a token stored before its bytes
// had landed would fail. Over Ethernet with both ends host-resident and host tokens, no
// copy or write is queued on any stream: the proxy sends from host memory and the
// receivers read into it. Over InfiniBand the HCA stand-in resolves every address against
// the key's registration, so a host-resident source must be posted by its host address.
func TestHostResident(t *testing.T) {
	cases := []struct {
		name             string
		srcHost, dstHost bool
		hostTokens       bool
	}{
		{"GPUToHost", false, true, false},
		{"HostToGPU", true, false, false},
		{"HostToHost", true, true, false},
		{"HostToHostTokensInHost", true, true, true},
	}
	for _, c := range cases {
		for _, ib := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/IB=%v", c.name, ib), func(t *testing.T) {
				hostResident(t, c.srcHost, c.dstHost, c.hostTokens, ib)
			})
		}
	}
}

// hostResident runs TestHostResident's exchanges on one set-up.
func hostResident(t *testing.T, srcHost, dstHost, hostTokens, ib bool) {
	useHostTokens(t, hostTokens)
	const most = ethHostInlineMax + 1<<20
	bs := newBoots(t, 2)
	opts := func(r int) MeshOptions { return ethOpts(ModeEthernet, "node") }
	space := newMemSpace()
	if ib {
		fabric := newIBFabric(space)
		opts = func(r int) MeshOptions { return ibOpts(ModeIB, fakeVerbs{f: fabric, atomics: true}) }
	}
	ranks := newStandinsOn(t, bootsOf(bs), 2*most+64, hostTokens, space, opts)
	onRanks(t, 2, func(r int) error {
		s := ranks[r]
		if dstHost {
			buf, err := s.m.ShareHost(s.bytes)
			if err != nil {
				return err
			}
			s.dstAll, s.dst = buf, buf.Ptrs[r]
		}
		if srcHost {
			buf, err := s.m.ShareHost(s.bytes)
			if err != nil {
				return err
			}
			s.src = buf.Ptrs[r]
		}
		if hostTokens {
			return s.connectPorts(HostTokens)
		}
		return s.connectPorts()
	})
	if t.Failed() {
		return
	}
	sizes := []uint64{1, 7, EthMinChunk - 1, EthMinChunk, EthMinChunk + 1, 256 << 10, 256<<10 + 1, 1<<20 + 4097,
		ethHostInlineMax, ethHostInlineMax + 1, most - 5}
	if testing.Short() {
		sizes = sizes[:7]
	}
	before := []int64{ranks[0].g.streamOps.Load(), ranks[1].g.streamOps.Load()}
	for k, size := range sizes {
		if err := exchange(ranks, func(r int) Bootstrap { return bs[r] }, k, size, uint64(k%3), 5); err != nil {
			t.Fatal(err)
		}
	}
	for r, s := range ranks {
		ops := s.g.streamOps.Load() - before[r]
		if none := srcHost && dstHost && hostTokens; ib || none && ops == 0 || !none && ops > 0 {
			continue
		}
		t.Errorf("rank %d: %d stream operations over Ethernet (source in host memory %v, destination %v, tokens %v)", r, ops, srcHost, dstHost, hostTokens)
	}
}

// TestShareHostRefusesCUDAIPC: host-resident memory cannot be mapped by a peer over CUDA
// IPC, so a rank with such a peer refuses it with an error that says why.
func TestShareHostRefusesCUDAIPC(t *testing.T) {
	bs := newBoots(t, 2)
	ranks := newStandins(t, bootsOf(bs), 4096, false, func(r int) MeshOptions { return ethOpts(ModeAuto, "machine") })
	onRanks(t, 2, func(r int) error {
		_, err := ranks[r].m.ShareHost(4096)
		if err == nil || !strings.Contains(err.Error(), "CUDA IPC") {
			return fmt.Errorf("ShareHost over CUDA IPC: got %v, want an error naming CUDA IPC", err)
		}
		return nil
	})
}
