package ethernet

import (
	"fmt"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
)

// TestHostResident: two ranks put to each other at once over Ethernet (and over the
// InfiniBand stand-in) with the source, the destination or both in host-resident memory
// (ShareHost), from one byte to several staging chunks (a GPU-memory source: inline up to
// MinChunk, then pieces over both data sockets; a host-resident source: inline up to
// MaxInline, into GPU memory through several staging slots, then pieces); every byte and the bytes around it are
// checked the moment the signal is seen (exchange), so a token stored before its bytes
// had landed would fail. Over Ethernet with both ends host-resident and host tokens, no
// copy or write is queued on any stream: the proxy sends from host memory and the
// receivers read into it. A smaller Options.Inline sends host-resident writes above it
// on the data sockets instead. Over InfiniBand the HCA stand-in resolves every address against
// the key's registration, so a host-resident source must be posted by its host address.
func TestHostResident(t *testing.T) {
	cases := []struct {
		name             string
		srcHost, dstHost bool
		hostTokens       bool
		inline           uint64 // Options.Inline; 0 the default
	}{
		{"GPUToHost", false, true, false, 0},
		{"HostToGPU", true, false, false, 0},
		{"HostToHost", true, true, false, 0},
		{"HostToHostTokensInHost", true, true, true, 0},
		{"HostToHostInline64K", true, true, true, 64 << 10},
		{"HostToHostInline4K", true, true, true, 4 << 10}, // below MinChunk: still no copy
		{"HostToGPUInline1", true, false, false, 1},
	}
	for _, c := range cases {
		for _, ib := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/IB=%v", c.name, ib), func(t *testing.T) {
				hostResident(t, c.srcHost, c.dstHost, c.hostTokens, ib, c.inline)
			})
		}
	}
}

// hostResident runs TestHostResident's exchanges on one set-up.
func hostResident(t *testing.T, srcHost, dstHost, hostTokens, ib bool, inline uint64) {
	channelstest.UseHostTokens(t, hostTokens)
	const most = MaxInline + 1<<20
	bs := channelstest.NewBoots(t, 2)
	opts := func(r int) channels.MeshOptions {
		return meshOpts(Mode, "node", Options{Sockets: 2, Chunk: 256 << 10, Depth: 2, Inline: inline})
	}
	space := channelstest.NewMemSpace()
	if ib {
		fabric := channelstest.NewIBFabric(space)
		opts = func(r int) channels.MeshOptions {
			return ibMeshOpts(channelstest.FakeVerbs{F: fabric, Atomics: true})
		}
	}
	ranks := channelstest.NewStandinsOn(t, channelstest.BootsOf(bs), 2*most+64, hostTokens, space, opts)
	channelstest.OnRanks(t, 2, func(r int) error {
		s := ranks[r]
		if dstHost {
			buf, err := s.M.ShareHost(s.Bytes)
			if err != nil {
				return err
			}
			s.DstAll, s.Dst = buf, buf.Ptrs[r]
		}
		if srcHost {
			buf, err := s.M.ShareHost(s.Bytes)
			if err != nil {
				return err
			}
			s.Src = buf.Ptrs[r]
		}
		if hostTokens {
			return s.ConnectPorts(channels.HostTokens)
		}
		return s.ConnectPorts()
	})
	if t.Failed() {
		return
	}
	sizes := []uint64{1, 7, MinChunk - 1, MinChunk, MinChunk + 1, 256 << 10, 256<<10 + 1, 1<<20 + 4097,
		MaxInline, MaxInline + 1, most - 5}
	if testing.Short() {
		sizes = sizes[:7]
	}
	before := []int64{ranks[0].G.StreamOps.Load(), ranks[1].G.StreamOps.Load()}
	for k, size := range sizes {
		if err := channelstest.Exchange(ranks, func(r int) channels.Bootstrap { return bs[r] }, k, size, uint64(k%3), 5); err != nil {
			t.Fatal(err)
		}
	}
	for r, s := range ranks {
		ops := s.G.StreamOps.Load() - before[r]
		if none := srcHost && dstHost && hostTokens; ib || none && ops == 0 || !none && ops > 0 {
			continue
		}
		t.Errorf("rank %d: %d stream operations over Ethernet (source in host memory %v, destination %v, tokens %v)", r, ops, srcHost, dstHost, hostTokens)
	}
}
