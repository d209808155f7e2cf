package channels

import (
	"bytes"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// standin is one rank of a test job on stand-in GPUs: its mesh, and a source and a
// destination buffer shared with every rank.
type standin struct {
	g        *memGPU
	m        *Mesh
	src, dst device.Ptr
	dstAll   *Buffer
	bytes    uint64
	head     atomic.Uint64 // the FIFO's head: the test is the only producer
	ports    map[int]*cpuPort
}

// newStandins builds a mesh per rank on bootstraps boots, with opts(r), buffers of size
// bytes, and one port channel per peer (host tokens if asked).
func newStandins(t testing.TB, boots []Bootstrap, size uint64, hostTokens bool, opts func(r int) MeshOptions) []*standin {
	t.Helper()
	return newStandinsOn(t, boots, size, hostTokens, newMemSpace(), opts)
}

// newStandinsOn is newStandins with the stand-in GPUs' memory in space.
func newStandinsOn(t testing.TB, boots []Bootstrap, size uint64, hostTokens bool, space *memSpace, opts func(r int) MeshOptions) []*standin {
	t.Helper()
	n := len(boots)
	ranks := make([]*standin, n)
	onRanks(t, n, func(r int) error {
		s := &standin{g: newMemGPU(r, space), bytes: size, ports: map[int]*cpuPort{}}
		ranks[r] = s
		var err error
		if s.m, err = NewMesh(s.g, boots[r], opts(r)); err != nil {
			return err
		}
		return s.setUp(hostTokens)
	})
	t.Cleanup(func() {
		onRanks(t, n, func(r int) error {
			if ranks[r] == nil || ranks[r].m == nil {
				return nil
			}
			if err := ranks[r].m.Close(); err != nil {
				return err
			}
			if leaks := ranks[r].g.leaks(); leaks != "" {
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

func (s *standin) setUp(hostTokens bool) error {
	var err error
	if s.src, err = s.m.Alloc(s.bytes); err != nil {
		return err
	}
	if s.dst, err = s.m.Alloc(s.bytes); err != nil {
		return err
	}
	if s.dstAll, err = s.m.Share(s.dst, s.bytes); err != nil {
		return err
	}
	var opts []PortOption
	if hostTokens {
		opts = append(opts, HostTokens)
	}
	return s.connectPorts(opts...)
}

// connectPorts makes a port channel per peer from s.src to the peers' s.dstAll, and makes
// them the ones s.ports drives.
func (s *standin) connectPorts(opts ...PortOption) error {
	hs, err := s.m.PortChannels(s.dstAll, s.src, s.bytes, opts...)
	if err != nil {
		return err
	}
	for i, p := range s.m.Peers() {
		s.ports[p] = &cpuPort{g: s.g, h: hs[i], head: &s.head, timeout: 20 * time.Second, failed: s.m.DeviceError}
	}
	return nil
}

// pattern is the byte rank `from` puts at index i of a transfer of size bytes in round k.
// Its higher bytes fold i, so that bytes landed at the wrong offset by a multiple of 256
// (a part or piece misplaced) differ from the right ones.
func pattern(from, to, k int, size uint64, i uint64) byte {
	fold := i ^ i>>8 ^ i>>16 ^ i>>24
	return byte(fold*7 + uint64(from)*31 + uint64(to)*5 + uint64(k)*3 + size)
}

// exchange has every rank put size bytes to every peer (at srcOff in its source, dstOff
// + slot*size in the peer's destination, a slot per sender) with a signal, wait for every
// peer's signal, check every received byte and the guard bytes around them, and flush.
// It returns the first problem. A rank that fails stops the others' waits at once (as a
// job ends when one of its processes fails), so that a broken protocol fails the test
// fast, not at the other ranks' timeouts.
func exchange(ranks []*standin, boot func(r int) Bootstrap, k int, size, srcOff, dstOff uint64) error {
	n := len(ranks)
	errs := make([]error, n)
	done := make(chan int, n)
	for r := range ranks {
		go func(r int) {
			defer func() { done <- r }()
			errs[r] = ranks[r].exchange(boot(r), k, size, srcOff, dstOff)
			if errs[r] != nil {
				for o := range ranks {
					if o != r {
						ranks[o].m.connFailed(fmt.Errorf("rank %d failed: %w", r, errs[r]))
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

const poison = 0xEE

func (s *standin) exchange(boot Bootstrap, k int, size, srcOff, dstOff uint64) error {
	me, peers := s.m.Rank, s.m.Peers()
	dst := s.g.space.bytes(s.dst, s.bytes)
	for i := range dst {
		dst[i] = poison
	}
	src := s.g.space.bytes(s.src, s.bytes)
	if err := boot.Barrier(); err != nil { // every destination poisoned before anyone puts
		return err
	}
	for _, p := range peers {
		for i := uint64(0); i < size; i++ {
			src[srcOff+i] = pattern(me, p, k, size, i)
		}
		if err := s.ports[p].putWithSignal(dstOff+uint64(me)*size, srcOff, size); err != nil {
			return err
		}
		// A flush returns once the source may change: spoil it right after.
		if err := s.ports[p].flush(); err != nil {
			return err
		}
		for i := uint64(0); i < size; i++ {
			src[srcOff+i] = ^pattern(me, p, k, size, i)
		}
	}
	for _, p := range peers {
		if err := s.ports[p].wait(); err != nil {
			return err
		}
	}
	// As a run checks after its kernels: a failed work request, a refused message.
	if err := s.m.DeviceError(); err != nil {
		return err
	}
	for _, p := range peers {
		at := dstOff + uint64(p)*size
		for i := uint64(0); i < size; i++ {
			if want := pattern(p, me, k, size, i); dst[at+i] != want {
				return fmt.Errorf("byte %d from rank %d is %#x, want %#x", i, p, dst[at+i], want)
			}
		}
	}
	// Around the slots, and in this rank's own slot, nothing may have been written.
	own := dst[dstOff+uint64(me)*size:][:size]
	if dstOff > 0 && dst[dstOff-1] != poison || bytes.Count(own, []byte{poison}) != len(own) {
		return fmt.Errorf("bytes outside the peers' slots were overwritten")
	}
	if end := dstOff + uint64(len(peers)+1)*size; end < s.bytes && dst[end] != poison {
		return fmt.Errorf("the byte after the last slot was overwritten")
	}
	return boot.Barrier()
}

// useHostTokens prepares a subtest whose port channels keep their tokens in host memory:
// token files in a directory of its own, and a skip under the race detector, which does not
// see the synchronisation through them (the test runs without -race).
func useHostTokens(t *testing.T, on bool) {
	if !on {
		return
	}
	if raceEnabled {
		t.Skip("host tokens synchronise through an mmap'd file, which the race detector does not see; this runs without -race")
	}
	old := ShmDir
	ShmDir = t.TempDir()
	t.Cleanup(func() { ShmDir = old })
}

// ethOpts is a small Ethernet set-up: 2 sockets, 256 KiB pieces, 2 slots deep, so each
// direction stages through 1 MiB.
func ethOpts(mode Mode, host string) MeshOptions {
	return MeshOptions{Mode: mode, Timeout: 20 * time.Second, Hostname: host,
		Ethernet: EthernetOptions{Sockets: 2, Chunk: 256 << 10, Depth: 2}}
}

func bootsOf(bs []*bootstrap.TCPBootstrap) []Bootstrap {
	out := make([]Bootstrap, len(bs))
	for i, b := range bs {
		out[i] = b
	}
	return out
}

// TestEthernetPortChannelsMoveEveryByte: two ranks put to each other at once over
// Ethernet, from one byte to 16 times the staging memory, at odd offsets; every byte is
// checked, and so are the bytes around it. With tokens in GPU and in host memory, with
// writes cut into at least 3 pieces per data socket (pieces of uneven sizes), and with
// pieces of up to 2 MiB (the default chunk's size class).
func TestEthernetPortChannelsMoveEveryByte(t *testing.T) {
	for _, c := range []struct {
		hostTokens bool
		pieces     int    // per data socket and write, at least (EthernetOptions.Pieces)
		chunk      uint64 // the largest piece (0: ethOpts's)
	}{{false, 1, 0}, {true, 1, 0}, {false, 3, 0}, {false, 1, 2 << 20}} {
		t.Run(fmt.Sprintf("HostTokens=%v/Pieces=%d/Chunk=%d", c.hostTokens, c.pieces, c.chunk), func(t *testing.T) {
			hostTokens := c.hostTokens
			useHostTokens(t, hostTokens)
			const most = 16 << 20
			bs := newBoots(t, 2)
			ranks := newStandins(t, bootsOf(bs), 2*most+64, hostTokens, func(r int) MeshOptions {
				o := ethOpts(ModeEthernet, "node")
				o.Ethernet.Pieces = c.pieces
				if c.chunk > 0 {
					o.Ethernet.Chunk = c.chunk
				}
				return o
			})
			for r, s := range ranks {
				if tr := s.m.Conns[1-r].Transport(); tr != TransportEthernet {
					t.Fatalf("rank %d connects over %v", r, tr)
				}
			}
			sizes := []uint64{1, 7, 4096, 64<<10 - 1, 256 << 10, 256<<10 + 1, 1<<20 + 4097, 3 << 20, most - 5}
			if testing.Short() {
				sizes = sizes[:6]
			}
			for k, size := range sizes {
				if err := exchange(ranks, func(r int) Bootstrap { return bs[r] }, k, size, uint64(k%3), 5); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestEthernetSignalFollowsData: rank 0 puts one or three writes and signals with the last;
// rank 1 checks every write the moment the signal arrives. Small writes travel with the
// mark on the control socket, large ones in pieces on the data sockets, and the stand-in's
// copies land late, so a signal applied before every socket has delivered its data would
// be seen.
func TestEthernetSignalFollowsData(t *testing.T) {
	bs := newBoots(t, 2)
	const slot = 320 << 10 // writes from 1 byte to 320 KiB: inline, one piece, several
	ranks := newStandins(t, bootsOf(bs), 4*slot, false, func(r int) MeshOptions { return ethOpts(ModeEthernet, "node") })
	send, recv := ranks[0], ranks[1]
	src, dst := send.g.space.bytes(send.src, 4*slot), recv.g.space.bytes(recv.dst, 4*slot)
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	for k := 0; k < rounds; k++ {
		size := uint64(1 + k*16411%slot)
		for i := uint64(0); i < 4*slot; i++ {
			src[i] = pattern(0, 1, k, size, i)
		}
		pieces := uint64(1 + 2*(k%2))
		for piece := uint64(0); piece < pieces; piece++ {
			typ := uint32(TriggerData)
			if piece == pieces-1 {
				typ |= TriggerFlag
			}
			if _, err := send.ports[1].push(typ, piece*slot, piece*slot, size); err != nil {
				t.Fatal(err)
			}
		}
		if err := recv.ports[0].wait(); err != nil {
			t.Fatal(err)
		}
		for piece := uint64(0); piece < pieces; piece++ {
			at := piece * slot
			if !bytes.Equal(dst[at:at+size], src[at:at+size]) {
				t.Fatalf("round %d: piece %d (%d bytes) had not all landed when the signal arrived", k, piece, size)
			}
		}
		if err := send.ports[1].flush(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMixedHostsAutoMode: three ranks on two simulated hosts (HostIDs a, a, b) in auto
// mode: the pair on host a connects by CUDA IPC, the others over Ethernet, and every
// rank's puts reach every other rank intact, with tokens in GPU and in host memory.
func TestMixedHostsAutoMode(t *testing.T) {
	for _, hostTokens := range []bool{false, true} {
		t.Run(fmt.Sprintf("HostTokens=%v", hostTokens), func(t *testing.T) {
			useHostTokens(t, hostTokens)
			bs := newBoots(t, 3)
			hosts := []string{"a", "a", "b"}
			ranks := newStandins(t, bootsOf(bs), 3*(4<<20)+64, hostTokens, func(r int) MeshOptions {
				o := ethOpts(ModeAuto, "machine")
				o.HostID = hosts[r]
				return o
			})
			want := map[[2]int]Transport{{0, 1}: TransportCUDAIPC, {0, 2}: TransportEthernet, {1, 2}: TransportEthernet}
			for r, s := range ranks {
				for pair, tr := range want {
					if got := s.m.PairTransport(pair[0], pair[1]); got != tr {
						t.Errorf("rank %d: pair %v uses %v, want %v", r, pair, got, tr)
					}
					if pair[0] == r && s.m.Conns[pair[1]].Transport() != tr {
						t.Errorf("rank %d's connection to %d is %v, want %v", r, pair[1], s.m.Conns[pair[1]].Transport(), tr)
					}
				}
			}
			if got := DescribeTransports(ranks[0].m.Endpoints, ranks[0].m.PairTransport); got != "hosts=2 within=cudaipc between=ethernet" {
				t.Errorf("description %q", got)
			}
			for k, size := range []uint64{1, 300 << 10, 4<<20 - 3} {
				if err := exchange(ranks, func(r int) Bootstrap { return bs[r] }, k, size, 1, 3); err != nil {
					t.Fatal(err)
				}
			}
			// Memory channels need CUDA IPC to every peer: not on two hosts.
			if _, err := ranks[0].m.MemoryChannels(ranks[0].dstAll, ranks[0].src); err == nil || !strings.Contains(err.Error(), "over ethernet") {
				t.Errorf("memory channels across hosts: %v", err)
			}
		})
	}
}

// TestEthernetLostPeer: a peer whose sockets drop without a goodbye (a crash) is reported
// on the surviving rank as a connection error naming it, and its next trigger fails.
func TestEthernetLostPeer(t *testing.T) {
	bs := newBoots(t, 2)
	ranks := newStandins(t, bootsOf(bs), 1<<20, false, func(r int) MeshOptions { return ethOpts(ModeEthernet, "node") })
	ranks[1].m.Conns[0].(*ethConn).shutdown() // rank 1 "crashes"
	err := waitFor(5*time.Second, func() bool { return ranks[0].m.DeviceError() != nil }, "rank 0 to notice")
	if err != nil {
		t.Fatal(err)
	}
	if msg := ranks[0].m.DeviceError().Error(); !strings.Contains(msg, "ethernet connection to rank 1") || !strings.Contains(msg, "lost") {
		t.Errorf("error %q does not say the connection to rank 1 was lost", msg)
	}
	if got := *ranks[0].g.word(ranks[0].m.ErrorWordPtr()); got == 0 {
		t.Error("device waits were not stopped (error word still 0)")
	}
	if err := ranks[0].m.proxy.Handle(MakeTrigger(TriggerData, 0, 0, 0, 64)); err == nil || !strings.Contains(err.Error(), "rank 1") {
		t.Errorf("a put on the broken connection: %v", err)
	}
}

// TestEthernetRejectsBadDestination: a put that names memory the receiver never
// registered is refused there, with a message that says so, instead of writing anywhere.
func TestEthernetRejectsBadDestination(t *testing.T) {
	bs := newBoots(t, 2)
	ranks := newStandins(t, bootsOf(bs), 1<<20, false, func(r int) MeshOptions { return ethOpts(ModeEthernet, "node") })
	chans := *ranks[0].m.proxy.channels.Load()
	bad := *chans[0]
	bad.Dst.ID = 999
	id, err := ranks[0].m.proxy.AddChannel(&bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := ranks[0].m.proxy.Handle(MakeTrigger(TriggerData, id, 0, 0, 64)); err != nil {
		t.Fatal(err)
	}
	err = waitFor(5*time.Second, func() bool { return ranks[1].m.DeviceError() != nil }, "rank 1 to refuse the put")
	if err != nil {
		t.Fatal(err)
	}
	if msg := ranks[1].m.DeviceError().Error(); !strings.Contains(msg, "memory 999 is not registered") {
		t.Errorf("rank 1: %q", msg)
	}
}

// TestEthernetMeasureTCP: the raw socket rate is measured over the pair's sockets, and
// puts and signals still work afterwards (the probe's mark shares their sequence).
func TestEthernetMeasureTCP(t *testing.T) {
	bs := newBoots(t, 2)
	ranks := newStandins(t, bootsOf(bs), 1<<20, false, func(r int) MeshOptions { return ethOpts(ModeEthernet, "node") })
	rates := make([]float64, 2)
	onRanks(t, 2, func(r int) error {
		var err error
		rates[r], err = ranks[r].m.MeasureTCP(0, 1, 8<<20+5)
		return err
	})
	if rates[0] <= 0 || rates[1] != 0 {
		t.Errorf("rates %v: want a positive rate on the sender only", rates)
	}
	t.Logf("raw rate over 2 sockets: %.2f GB/s", rates[0])
	if err := exchange(ranks, func(r int) Bootstrap { return bs[r] }, 0, 300<<10, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := ranks[0].m.MeasureTCP(0, 0, 1); err == nil {
		t.Error("a rank measured the rate to itself")
	}
	// Both ways at once: each rank gets the rate of its own direction, and puts and
	// signals still work afterwards.
	onRanks(t, 2, func(r int) error {
		var err error
		rates[r], err = ranks[r].m.MeasureTCPBothWays(0, 1, 8<<20+5)
		return err
	})
	if rates[0] <= 0 || rates[1] <= 0 {
		t.Errorf("both ways: rates %v, want a positive rate on each rank", rates)
	}
	t.Logf("raw rate both ways over 2 sockets: %.2f / %.2f GB/s", rates[0], rates[1])
	if err := exchange(ranks, func(r int) Bootstrap { return bs[r] }, 0, 300<<10, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := ranks[1].m.MeasureTCPBothWays(1, 1, 1); err == nil {
		t.Error("a rank measured the rate both ways to itself")
	}
}

// TestEthPieceSize: a write is cut so that each data socket's share is in Pieces pieces,
// none below half the chunk unless the share is, in 4 KiB multiples, between EthMinChunk
// and the chunk.
func TestEthPieceSize(t *testing.T) {
	for _, c := range []struct {
		sockets, pieces int
		chunk, size     uint64
		want            uint64
	}{
		{8, 1, 4 << 20, 1 << 30, 4 << 20},          // large: whole chunks
		{8, 1, 4 << 20, 32 << 20, 4 << 20},         // one piece per socket
		{8, 4, 4 << 20, 128 << 20, 4 << 20},        // the chunk caps it
		{8, 4, 4 << 20, 64 << 20, 2 << 20},         // four per socket
		{8, 4, 4 << 20, 32 << 20, 2 << 20},         // half a chunk floors it: two per socket
		{8, 4, 4 << 20, 16 << 20, 2 << 20},         // one per socket
		{8, 4, 4 << 20, 4 << 20, 512 << 10},        // the share is below the floor: one per socket
		{8, 4, 4 << 20, 256 << 10, EthMinChunk},    // EthMinChunk floors it
		{2, 3, 512 << 10, 1<<20 + 4097, 256 << 10}, // thirds of 514 KiB are below the floor
		{2, 3, 256 << 10, 1<<20 + 4097, 172 << 10}, // a third, 171.3 KiB, rounded up to 4 KiB
		{8, 1, 4 << 20, 100, EthMinChunk},
	} {
		conn := &ethConn{chunk: c.chunk, pieces: uint64(c.pieces), senders: make([]*ethSender, c.sockets)}
		if got := conn.pieceSize(c.size); got != c.want {
			t.Errorf("%d sockets, %d pieces, %d-byte chunk: a %d-byte write in pieces of %d, want %d", c.sockets, c.pieces, c.chunk, c.size, got, c.want)
		}
	}
}

// TestEthernetPeersWithDifferentChunks: two ranks whose MSCCLPP_BENCH_ETH_CHUNK differ
// (each sends pieces no larger than the smaller chunk, which the peer's staging slots
// hold) put to each other at once, at sizes around both chunks and many times either;
// every byte is checked.
func TestEthernetPeersWithDifferentChunks(t *testing.T) {
	for _, chunks := range [][2]uint64{{EthMinChunk, 1 << 20}, {1 << 20, EthMinChunk}, {256 << 10, 4 << 20}} {
		t.Run(fmt.Sprintf("%d-%d", chunks[0], chunks[1]), func(t *testing.T) {
			const most = 9<<20 + 3
			bs := newBoots(t, 2)
			ranks := newStandins(t, bootsOf(bs), 2*most+64, false, func(r int) MeshOptions {
				o := ethOpts(ModeEthernet, "node")
				o.Ethernet.Chunk = chunks[r]
				return o
			})
			sizes := []uint64{1, EthMinChunk - 1, EthMinChunk + 1, 256<<10 + 4097, 1<<20 + 1, 4<<20 + 5, most}
			for k, size := range sizes {
				if err := exchange(ranks, func(r int) Bootstrap { return bs[r] }, k, size, uint64(k%3), 7); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestEthernetWrongByteCountFailsFast: a data message whose header gives a wrong byte count
// (16 where 64 follow) makes the receiver read data as the next header; it must refuse it,
// and both ranks' waits, each good for 20 s, must end at once with an error naming the
// cause, as a kernel stops at the mesh's error word: not at their timeouts.
func TestEthernetWrongByteCountFailsFast(t *testing.T) {
	bs := newBoots(t, 2)
	ranks := newStandins(t, bootsOf(bs), 1<<20, false, func(r int) MeshOptions { return ethOpts(ModeEthernet, "node") })
	dst := (*ranks[0].m.proxy.channels.Load())[0].Dst.ID
	c := ranks[0].m.Conns[1].(*ethConn)
	var hdr [ethHeaderSize]byte
	putHeader(&hdr, ethMsgData, dst, 0, 16, 0)
	c.produce.Lock()
	err := c.ctl.writev(hdr[:], bytes.Repeat([]byte{0xEE}, 64))
	c.produce.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	errs := make([]error, 2)
	onRanks(t, 2, func(r int) error {
		if ranks[r].ports[1-r].timeout != 20*time.Second {
			return fmt.Errorf("the port's timeout is %v, want 20 s", ranks[r].ports[1-r].timeout)
		}
		errs[r] = ranks[r].ports[1-r].wait()
		return nil
	})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the waits ended after %v; want them stopped at once", took)
	}
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "unexpected message type 238") {
		t.Errorf("rank 1 (the receiver): %v; want the bad header refused", errs[1])
	}
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "rank 1") {
		t.Errorf("rank 0: %v; want an error naming rank 1", errs[0])
	}
}
