package ethernet

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
)

// TestEthernetPortChannelsMoveEveryByte: two ranks put to each other at once over
// Ethernet, from one byte to 16 times the staging memory, at odd offsets; every byte is
// checked, and so are the bytes around it. With tokens in GPU and in host memory, with
// writes cut into at least 3 pieces per data socket (pieces of uneven sizes), and with
// pieces of up to 2 MiB (the default chunk's size class).
func TestEthernetPortChannelsMoveEveryByte(t *testing.T) {
	for _, c := range []struct {
		hostTokens bool
		pieces     int    // per data socket and write, at least (Options.Pieces)
		chunk      uint64 // the largest piece (0: ethOpts's)
	}{{false, 1, 0}, {true, 1, 0}, {false, 3, 0}, {false, 1, 2 << 20}} {
		t.Run(fmt.Sprintf("HostTokens=%v/Pieces=%d/Chunk=%d", c.hostTokens, c.pieces, c.chunk), func(t *testing.T) {
			hostTokens := c.hostTokens
			channelstest.UseHostTokens(t, hostTokens)
			const most = 16 << 20
			bs := channelstest.NewBoots(t, 2)
			ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 2*most+64, hostTokens, func(r int) channels.MeshOptions {
				o := ethOpts(Mode, "node")
				setEth(&o, func(e *Options) { e.Pieces = c.pieces })
				if c.chunk > 0 {
					setEth(&o, func(e *Options) { e.Chunk = c.chunk })
				}
				return o
			})
			for r, s := range ranks {
				if tr := s.M.Conns[1-r].Transport(); tr != Transport {
					t.Fatalf("rank %d connects over %v", r, tr)
				}
			}
			sizes := []uint64{1, 7, 4096, 64<<10 - 1, 256 << 10, 256<<10 + 1, 1<<20 + 4097, 3 << 20, most - 5}
			if testing.Short() {
				sizes = sizes[:6]
			}
			for k, size := range sizes {
				if err := channelstest.Exchange(ranks, func(r int) channels.Bootstrap { return bs[r] }, k, size, uint64(k%3), 5); err != nil {
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
	bs := channelstest.NewBoots(t, 2)
	const slot = 320 << 10 // writes from 1 byte to 320 KiB: inline, one piece, several
	ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 4*slot, false, func(r int) channels.MeshOptions { return ethOpts(Mode, "node") })
	send, recv := ranks[0], ranks[1]
	src, dst := send.G.Space.Bytes(send.Src, 4*slot), recv.G.Space.Bytes(recv.Dst, 4*slot)
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	for k := 0; k < rounds; k++ {
		size := uint64(1 + k*16411%slot)
		for i := uint64(0); i < 4*slot; i++ {
			src[i] = channelstest.Pattern(0, 1, k, size, i)
		}
		pieces := uint64(1 + 2*(k%2))
		for piece := uint64(0); piece < pieces; piece++ {
			typ := uint32(channels.TriggerData)
			if piece == pieces-1 {
				typ |= channels.TriggerFlag
			}
			if _, err := send.Ports[1].Push(typ, piece*slot, piece*slot, size); err != nil {
				t.Fatal(err)
			}
		}
		if err := recv.Ports[0].Wait(); err != nil {
			t.Fatal(err)
		}
		for piece := uint64(0); piece < pieces; piece++ {
			at := piece * slot
			if !bytes.Equal(dst[at:at+size], src[at:at+size]) {
				t.Fatalf("round %d: piece %d (%d bytes) had not all landed when the signal arrived", k, piece, size)
			}
		}
		if err := send.Ports[1].Flush(); err != nil {
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
			channelstest.UseHostTokens(t, hostTokens)
			bs := channelstest.NewBoots(t, 3)
			hosts := []string{"a", "a", "b"}
			ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 3*(4<<20)+64, hostTokens, func(r int) channels.MeshOptions {
				o := ethOpts(channels.ModeAuto, "machine")
				o.HostID = hosts[r]
				return o
			})
			want := map[[2]int]channels.Transport{{0, 1}: cudaipc.Transport, {0, 2}: Transport, {1, 2}: Transport}
			for r, s := range ranks {
				for pair, tr := range want {
					if got := s.M.PairTransport(pair[0], pair[1]); got != tr {
						t.Errorf("rank %d: pair %v uses %v, want %v", r, pair, got, tr)
					}
					if pair[0] == r && s.M.Conns[pair[1]].Transport() != tr {
						t.Errorf("rank %d's connection to %d is %v, want %v", r, pair[1], s.M.Conns[pair[1]].Transport(), tr)
					}
				}
			}
			if got := channels.DescribeTransports(ranks[0].M.Endpoints, ranks[0].M.PairTransport); got != "hosts=2 within=cudaipc between=ethernet" {
				t.Errorf("description %q", got)
			}
			for k, size := range []uint64{1, 300 << 10, 4<<20 - 3} {
				if err := channelstest.Exchange(ranks, func(r int) channels.Bootstrap { return bs[r] }, k, size, 1, 3); err != nil {
					t.Fatal(err)
				}
			}
			// Memory channels need CUDA IPC to every peer: not on two hosts.
			if _, err := ranks[0].M.MemoryChannels(ranks[0].DstAll, ranks[0].Src); err == nil || !strings.Contains(err.Error(), "over ethernet") {
				t.Errorf("memory channels across hosts: %v", err)
			}
		})
	}
}

// TestEthernetLostPeer: a peer whose sockets drop without a goodbye (a crash) is reported
// on the surviving rank as a connection error naming it, and its next trigger fails.
func TestEthernetLostPeer(t *testing.T) {
	bs := channelstest.NewBoots(t, 2)
	ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 1<<20, false, func(r int) channels.MeshOptions { return ethOpts(Mode, "node") })
	ranks[1].M.Conns[0].(*ethConn).shutdown() // rank 1 "crashes"
	err := channelstest.WaitFor(5*time.Second, func() bool { return ranks[0].M.DeviceError() != nil }, "rank 0 to notice")
	if err != nil {
		t.Fatal(err)
	}
	if msg := ranks[0].M.DeviceError().Error(); !strings.Contains(msg, "ethernet connection to rank 1") || !strings.Contains(msg, "lost") {
		t.Errorf("error %q does not say the connection to rank 1 was lost", msg)
	}
	if got := *ranks[0].G.Word(ranks[0].M.ErrorWordPtr()); got == 0 {
		t.Error("device waits were not stopped (error word still 0)")
	}
	if err := ranks[0].M.Proxy().Handle(channels.MakeTrigger(channels.TriggerData, 0, 0, 0, 64)); err == nil || !strings.Contains(err.Error(), "rank 1") {
		t.Errorf("a put on the broken connection: %v", err)
	}
}

// TestEthernetRejectsBadDestination: a put that names memory the receiver never
// registered is refused there, with a message that says so, instead of writing anywhere.
func TestEthernetRejectsBadDestination(t *testing.T) {
	bs := channelstest.NewBoots(t, 2)
	ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 1<<20, false, func(r int) channels.MeshOptions { return ethOpts(Mode, "node") })
	chans := ranks[0].M.Proxy().Channels()
	bad := *chans[0]
	bad.Dst.ID = 999
	id, err := ranks[0].M.Proxy().AddChannel(&bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := ranks[0].M.Proxy().Handle(channels.MakeTrigger(channels.TriggerData, id, 0, 0, 64)); err != nil {
		t.Fatal(err)
	}
	err = channelstest.WaitFor(5*time.Second, func() bool { return ranks[1].M.DeviceError() != nil }, "rank 1 to refuse the put")
	if err != nil {
		t.Fatal(err)
	}
	if msg := ranks[1].M.DeviceError().Error(); !strings.Contains(msg, "memory 999 is not registered") {
		t.Errorf("rank 1: %q", msg)
	}
}

// TestEthernetMeasureTCP: the raw socket rate is measured over the pair's sockets, and
// puts and signals still work afterwards (the probe's mark shares their sequence).
func TestEthernetMeasureTCP(t *testing.T) {
	bs := channelstest.NewBoots(t, 2)
	ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 1<<20, false, func(r int) channels.MeshOptions { return ethOpts(Mode, "node") })
	rates := make([]float64, 2)
	channelstest.OnRanks(t, 2, func(r int) error {
		var err error
		rates[r], err = MeasureTCP(ranks[r].M, 0, 1, 8<<20+5)
		return err
	})
	if rates[0] <= 0 || rates[1] != 0 {
		t.Errorf("rates %v: want a positive rate on the sender only", rates)
	}
	t.Logf("raw rate over 2 sockets: %.2f GB/s", rates[0])
	if err := channelstest.Exchange(ranks, func(r int) channels.Bootstrap { return bs[r] }, 0, 300<<10, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := MeasureTCP(ranks[0].M, 0, 0, 1); err == nil {
		t.Error("a rank measured the rate to itself")
	}
	// Both ways at once: each rank gets the rate of its own direction, and puts and
	// signals still work afterwards.
	channelstest.OnRanks(t, 2, func(r int) error {
		var err error
		rates[r], err = MeasureTCPBothWays(ranks[r].M, 0, 1, 8<<20+5)
		return err
	})
	if rates[0] <= 0 || rates[1] <= 0 {
		t.Errorf("both ways: rates %v, want a positive rate on each rank", rates)
	}
	t.Logf("raw rate both ways over 2 sockets: %.2f / %.2f GB/s", rates[0], rates[1])
	if err := channelstest.Exchange(ranks, func(r int) channels.Bootstrap { return bs[r] }, 0, 300<<10, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := MeasureTCPBothWays(ranks[1].M, 1, 1, 1); err == nil {
		t.Error("a rank measured the rate both ways to itself")
	}
}

// TestEthPieceSize: a write is cut so that each data socket's share is in Pieces pieces,
// none below half the chunk unless the share is, in 4 KiB multiples, between MinChunk
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
		{8, 4, 4 << 20, 256 << 10, MinChunk},       // MinChunk floors it
		{2, 3, 512 << 10, 1<<20 + 4097, 256 << 10}, // thirds of 514 KiB are below the floor
		{2, 3, 256 << 10, 1<<20 + 4097, 172 << 10}, // a third, 171.3 KiB, rounded up to 4 KiB
		{8, 1, 4 << 20, 100, MinChunk},
	} {
		conn := &ethConn{chunk: c.chunk, pieces: uint64(c.pieces), senders: make([]*ethSender, c.sockets)}
		if got := conn.pieceSize(c.size); got != c.want {
			t.Errorf("%d sockets, %d pieces, %d-byte chunk: a %d-byte write in pieces of %d, want %d", c.sockets, c.pieces, c.chunk, c.size, got, c.want)
		}
	}
}

// TestEthPieceSizeSpread: where Spread limits the data sockets, a write whose pieces would
// be under SpreadPiece goes to that many (or to as many SpreadPiece pieces as it fills),
// and a large one to every socket as before.
func TestEthPieceSizeSpread(t *testing.T) {
	for _, c := range []struct {
		spread uint64
		size   uint64
		want   uint64
	}{
		{0, 512 << 10, MinChunk},  // no limit: 8 pieces on 12 sockets
		{12, 512 << 10, MinChunk}, // a limit of every socket: the same
		{4, 512 << 10, 128 << 10}, // 4 sockets
		{4, 1 << 20, 256 << 10},   // 4 sockets of SpreadPiece each
		{4, 2 << 20, 256 << 10},   // 8 pieces of SpreadPiece: over the limit
		{4, 4 << 20, 344 << 10},   // every socket, as without the limit
		{1, 512 << 10, 256 << 10}, // two pieces of SpreadPiece
		{1, 200 << 10, 200 << 10}, // one piece
		{4, 64 << 20, 2 << 20},    // large: half-chunk pieces on every socket
		{2, 300 << 10, 152 << 10}, // halves, rounded up to 4 KiB
		{3, 100, MinChunk},        // MinChunk floors it
	} {
		conn := &ethConn{chunk: 4 << 20, pieces: 4, senders: make([]*ethSender, 12), spread: c.spread}
		if got := conn.pieceSize(c.size); got != c.want {
			t.Errorf("spread %d: a %d-byte write in pieces of %d, want %d", c.spread, c.size, got, c.want)
		}
	}
}

// TestSpread: the rank's share of the machine's helper CPUs less its polling threads, per
// connection, at least 1; no limit where the CPUs are not known.
func TestSpread(t *testing.T) {
	for _, c := range []struct {
		cpus, sharedBy, peers int
		poll                  bool
		want                  int
	}{
		{0, 2, 1, true, 0},   // not known: every socket
		{12, 2, 1, true, 4},  // one H200, 16 vCPUs, 2 simulated hosts of one rank
		{28, 2, 1, true, 12}, // 2xH200, 32 vCPUs, the same layout
		{12, 2, 1, false, 6}, // no polling threads
		{8, 4, 2, false, 1},  // 4 ranks on 16 vCPUs, 2 network peers each
		{24, 4, 2, true, 1},  // 4 ranks on 32 vCPUs, polling
		{56, 4, 2, true, 5},  // 4 ranks on 64 vCPUs
		{12, 0, 1, true, 10}, // SharedBy 0 is 1
		{5, 1, 0, true, 0},   // no peers
	} {
		if got := Spread(c.cpus, c.sharedBy, c.peers, c.poll); got != c.want {
			t.Errorf("Spread(%d CPUs, shared by %d, %d peers, poll %v) = %d, want %d", c.cpus, c.sharedBy, c.peers, c.poll, got, c.want)
		}
	}
}

// TestPolls: the control sockets poll where every rank's polling threads (two a
// connection) fit the machine's helper CPUs, or where those are not known.
func TestPolls(t *testing.T) {
	for _, c := range []struct {
		cpus, sharedBy, peers int
		want                  bool
	}{
		{0, 4, 2, true},   // not known
		{12, 2, 1, true},  // one H200, 2 simulated hosts of one rank: 4 of 12
		{8, 4, 2, false},  // one H200, 2 simulated hosts of 2 ranks: 16 of 8
		{24, 4, 2, true},  // 2xH200, the same layout: 16 of 24
		{16, 4, 2, true},  // exactly full
		{15, 4, 2, false}, // one short
		{1, 0, 1, false},  // SharedBy 0 is 1: 2 of 1
	} {
		if got := Polls(c.cpus, c.sharedBy, c.peers); got != c.want {
			t.Errorf("Polls(%d CPUs, shared by %d, %d peers) = %v, want %v", c.cpus, c.sharedBy, c.peers, got, c.want)
		}
	}
}

// twoEthRanks starts two Ethernet stand-in ranks with room for exchanges of up to most bytes,
// each rank's options set by set.
func twoEthRanks(t *testing.T, most uint64, set func(r int, e *Options)) ([]*bootstrap.TCPBootstrap, []*channelstest.Standin) {
	t.Helper()
	bs := channelstest.NewBoots(t, 2)
	ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 2*most+64, false, func(r int) channels.MeshOptions {
		o := ethOpts(Mode, "node")
		setEth(&o, func(e *Options) { set(r, e) })
		return o
	})
	return bs, ranks
}

// exchangeRound runs channelstest.Exchange's round k of size bytes (source offset k%3,
// destination offset 7) and fails the test on any error.
func exchangeRound(t *testing.T, bs []*bootstrap.TCPBootstrap, ranks []*channelstest.Standin, k int, size uint64) {
	t.Helper()
	if err := channelstest.Exchange(ranks, func(r int) channels.Bootstrap { return bs[r] }, k, size, uint64(k%3), 7); err != nil {
		t.Fatalf("%d bytes: %v", size, err)
	}
}

// TestEthernetPeersWithDifferentChunks: two ranks whose MSCCLPP_BENCH_ETH_CHUNK differ
// (each sends pieces no larger than the smaller chunk, which the peer's staging slots
// hold) put to each other at once, at sizes around both chunks and many times either;
// every byte is checked.
func TestEthernetPeersWithDifferentChunks(t *testing.T) {
	for _, chunks := range [][2]uint64{{MinChunk, 1 << 20}, {1 << 20, MinChunk}, {256 << 10, 4 << 20}} {
		t.Run(fmt.Sprintf("%d-%d", chunks[0], chunks[1]), func(t *testing.T) {
			const most = 9<<20 + 3
			bs, ranks := twoEthRanks(t, most, func(r int, e *Options) { e.Chunk = chunks[r] })
			sizes := []uint64{1, MinChunk - 1, MinChunk + 1, 256<<10 + 4097, 1<<20 + 1, 4<<20 + 5, most}
			for k, size := range sizes {
				exchangeRound(t, bs, ranks, k, size)
			}
		})
	}
}

// TestEthernetSpreadExchange: ranks whose machine has so few helper CPUs for its ranks
// that nothing polls (Polls) and a write goes to one data socket below SpreadPiece pieces
// (Spread 1), though polling was asked for, put to each other at once, around and well
// past SpreadPiece; every byte is checked.
func TestEthernetSpreadExchange(t *testing.T) {
	const most = 5<<20 + 3
	bs, ranks := twoEthRanks(t, most, func(_ int, e *Options) { e.Spin, e.MachineCPUs, e.SharedBy = time.Millisecond, 2, 2 })
	if c := ranks[0].M.Conns[1].(*ethConn); c.spread != 1 || c.ctlSend != nil || c.ctl.spin != 0 {
		t.Fatalf("spread %d, control sender %v, control receiver's spin %v: want 1, none, 0", c.spread, c.ctlSend != nil, c.ctl.spin)
	}
	sizes := []uint64{MinChunk + 1, SpreadPiece - 1, SpreadPiece + 1, 512<<10 + 4097, 2<<20 + 1, most}
	for k, size := range sizes {
		exchangeRound(t, bs, ranks, k, size)
	}
}

// TestEthernetPollingExchange: ranks whose control sockets poll put to each other at once,
// small writes (on the control socket, whose receiver polls after them) and large ones (on
// the data sockets, after whose marks the control threads sleep) in turn; every byte is
// checked, and after each round the control receivers rest exactly where the last mark
// waited for data-socket pieces.
func TestEthernetPollingExchange(t *testing.T) {
	const most = 3<<20 + 5
	bs, ranks := twoEthRanks(t, most, func(_ int, e *Options) { e.Spin = time.Millisecond })
	if c := ranks[0].M.Conns[1].(*ethConn); c.ctlSend == nil || c.ctl.spin != time.Millisecond {
		t.Fatalf("control sender %v, control receiver's spin %v: want one, 1ms", c.ctlSend != nil, c.ctl.spin)
	}
	sizes := []uint64{1, 1<<20 + 1, 7, most, MinChunk - 1, MinChunk + 1, 4096, 2 << 20, 5}
	for k, size := range sizes {
		exchangeRound(t, bs, ranks, k, size)
		for r := range ranks {
			// the peer's signal was applied after its mark set rest: the round is over
			if rest, want := ranks[r].M.Conns[1-r].(*ethConn).ctl.rest.Load(), size > MinChunk; rest != want {
				t.Fatalf("after %d bytes rank %d's control receiver rests: %v, want %v", size, r, rest, want)
			}
		}
	}
}

// TestMorePieces: a mark asks for new data-socket pieces when any count exceeds the last
// mark's (or, for the first mark, is above zero).
func TestMorePieces(t *testing.T) {
	for _, tc := range []struct {
		last, need []uint64
		want       bool
	}{
		{nil, []uint64{0, 0}, false},
		{nil, []uint64{0, 1}, true},
		{[]uint64{3, 4}, []uint64{3, 4}, false},
		{[]uint64{3, 4}, []uint64{4, 4}, true},
		{[]uint64{3, 4}, []uint64{3, 5}, true},
	} {
		if got := morePieces(tc.last, tc.need); got != tc.want {
			t.Errorf("morePieces(%v, %v) = %v, want %v", tc.last, tc.need, got, tc.want)
		}
	}
}

// TestEthernetWrongByteCountFailsFast: a data message whose header gives a wrong byte count
// (16 where 64 follow) makes the receiver read data as the next header; it must refuse it,
// and both ranks' waits, each good for 20 s, must end at once with an error naming the
// cause, as a kernel stops at the mesh's error word: not at their timeouts.
func TestEthernetWrongByteCountFailsFast(t *testing.T) {
	bs := channelstest.NewBoots(t, 2)
	ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 1<<20, false, func(r int) channels.MeshOptions { return ethOpts(Mode, "node") })
	dst := ranks[0].M.Proxy().Channels()[0].Dst.ID
	c := ranks[0].M.Conns[1].(*ethConn)
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
	channelstest.OnRanks(t, 2, func(r int) error {
		if ranks[r].Ports[1-r].Timeout != 20*time.Second {
			return fmt.Errorf("the port's timeout is %v, want 20 s", ranks[r].Ports[1-r].Timeout)
		}
		errs[r] = ranks[r].Ports[1-r].Wait()
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
