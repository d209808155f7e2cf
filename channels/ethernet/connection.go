package ethernet

import (
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// ethConn connects two ranks over TCP: one control socket and several data sockets per
// peer, each used in both directions, and GPU data staged through pinned host memory.
//
// Sending. What is small goes on the control socket: a signal's mark, a write of at most
// MinChunk bytes of GPU memory (copied into the proxy's staging slot, then sent by the
// proxy with its header in one system call once the control socket's queue is empty) and
// a write of at most Options.Inline of host-resident memory (see below). Where the
// connection spins (Options.Spin), the proxy queues a trigger's marks and host-resident
// writes for the control socket's sender thread (ctlsend.go) and goes on, so that small
// sends to different peers overlap; else it writes them itself. A
// larger write is cut into pieces that the proxy deals out to the data sockets in turn:
// each data socket's sender thread has a queue of its own, copies its pieces out of GPU
// memory into staging slots and sends them, Depth copies in flight so that the copies
// overlap the socket. The proxy counts the pieces it gave each data socket; a mark
// carries those counts.
//
// Receiving. One receiver thread per socket reads each message into a staging slot and
// queues its copy into GPU memory, Depth copies in flight; a data receiver counts the
// pieces whose copy has finished (it finishes them all before it waits for more bytes).
// A signal is applied (the token stored) once every data socket has landed as many pieces
// as its mark says and the control socket's earlier writes have landed: then every byte
// written before the signal is in GPU memory. Signals are applied in order.
//
// Host-resident memory (Mesh.ShareHost: pinned host memory mapped into the GPU) takes
// no copy at all: a write whose source is host-resident is sent from there (by the control
// socket's sender up to Options.Inline, else by the data sockets' senders), and a
// data message whose destination is host-resident is read straight into it, landed once
// read. No CUDA call is on either path.
//
// Flush waits until every byte written so far has been copied out of GPU memory (the
// source may then change); it does not wait for the peer.
type ethConn struct {
	peer      int
	timeout   time.Duration
	ctl       *ethSock   // control socket: marks and small writes, written by the proxy
	data      []*ethSock // data sockets: pieces of large writes
	chunk     uint64     // largest piece this side sends (the peer's receive slots hold it)
	recvChunk uint64     // largest piece the peer may send
	pieces    uint64     // pieces per data socket of a write, at least (Options.Pieces)
	spread    uint64     // data sockets a write of pieces under SpreadPiece goes to (0: all; Spread)
	inlineMax uint64     // largest host-resident write on the control socket (Options.Inline, checked by resolveOptions)
	copier    Copier
	reg       channels.Memories
	onError   func(error)

	// Proxy side (under produce).
	produce  sync.Mutex // the proxy sends, but MeasureTCP and Close do too
	inline   ethSlot    // staging of small writes
	ctlBuf   []byte     // a mark: header and per-data-socket piece counts
	ctlOut   []ctlPart  // control messages of the trigger being handled, sent at its end
	ctlSync  bool       // ctlOut holds the staging slot: the proxy sends it itself
	ctlBufs  [][]byte   // ctlOut as the proxy writes it itself
	ctlSend  *ctlSender
	dealt    bool     // pieces went to the data sockets since the last control messages
	sent     []uint64 // pieces given to each data socket
	turn     int      // the data socket that gets the next write's first piece
	sigSeq   uint64
	enqueued uint64 // bytes written so far
	staged   atomic.Uint64
	senders  []*ethSender

	ctlRecv   *ethReceiver
	receivers []*ethReceiver // of the data sockets
	marks     markTable

	probes chan uint64 // sequence numbers of probe marks received (probe.go)

	stop    chan struct{}
	closing atomic.Bool
	wg      sync.WaitGroup
	mu      sync.Mutex
	err     error
}

const (
	ethQueueSize  = 256 // segments the proxy may queue ahead of a sender
	ethHeaderSize = 32

	ethMsgData = 1 // a write or a piece of one: dst id, offset, length; payload follows
	ethMsgMark = 2 // a signal: token id, offset, value, sequence number; piece counts follow
	ethMsgBye  = 3 // nothing more will come on this socket
	ethMsgRaw  = 4 // bytes to discard: the raw socket rate (probe.go)

	segWrite = 1
	segRaw   = 2
	segBye   = 3
)

// ethSlot is a staging slot and the queue its copies run on.
type ethSlot struct {
	stage Stage
	q     CopyQueue
	hdr   [ethHeaderSize]byte
	n     uint64
}

func newEthConn(peer int, socks []net.Conn, chunk, recvChunk uint64, depth, pieces int, inline uint64, timeout time.Duration, copier Copier, reg channels.Memories, onError func(error), cpus affinity.Set, spin time.Duration) (_ *ethConn, err error) {
	if len(socks) < 2 {
		closeAll(socks)
		return nil, fmt.Errorf("%d sockets: a control socket and at least one data socket are needed", len(socks))
	}
	c := &ethConn{peer: peer, timeout: timeout, chunk: chunk, recvChunk: recvChunk, pieces: uint64(max(pieces, 1)), inlineMax: inline, copier: copier, reg: reg,
		onError: onError, stop: make(chan struct{}), probes: make(chan uint64, 4)}
	nd := len(socks) - 1
	c.sent = make([]uint64, nd)
	c.marks.landed = make([]uint64, nd)
	c.ctlBuf = make([]byte, ethHeaderSize+8*nd)
	defer func() {
		if err != nil {
			c.closing.Store(true)
			c.shutdown()
			closeAll(socks)
			c.closeSocks()
			c.free()
		}
	}()
	for i, nc := range socks {
		s, err := newEthSock(nc, timeout)
		if err != nil {
			return nil, fmt.Errorf("socket %d: %w", i, err)
		}
		if i == 0 {
			s.spin = spin // only the control socket: it carries what waits on latency
		}
		socks[i] = nil
		if i == 0 {
			c.ctl = s
		} else {
			c.data = append(c.data, s)
		}
	}
	if c.marks.q, err = copier.NewQueue(); err != nil {
		return nil, err
	}
	slots := func(count int, n uint64) ([]ethSlot, error) {
		out := make([]ethSlot, count)
		for i := range out {
			var err error
			if out[i].stage, err = copier.AllocStage(n); err != nil {
				return out, err
			}
			if out[i].q, err = copier.NewQueue(); err != nil {
				return out, err
			}
		}
		return out, nil
	}
	in, err := slots(1, MinChunk)
	c.inline = in[0]
	if err != nil {
		return nil, err
	}
	c.ctlRecv = &ethReceiver{c: c, k: -1, sock: &ethReader{sock: c.ctl, buf: make([]byte, MinChunk+4096)}, raw: make([]byte, 8*nd)}
	if c.ctlRecv.slots, err = slots(depth, MinChunk); err != nil {
		return nil, err
	}
	for k, sock := range c.data {
		s := &ethSender{c: c, k: k, sock: sock, done: make(chan struct{})}
		r := &ethReceiver{c: c, k: k, sock: &ethReader{sock: sock, buf: make([]byte, 4096)}}
		c.senders = append(c.senders, s)
		c.receivers = append(c.receivers, r)
		if s.slots, err = slots(depth, chunk); err != nil {
			return nil, err
		}
		if r.slots, err = slots(depth, recvChunk); err != nil {
			return nil, err
		}
	}
	// Without a spin (no CPU to spare for the rank's helper threads) the proxy writes the
	// control socket itself: waking a sleeping sender for every message would cost more
	// than the write.
	if spin > 0 {
		c.ctlSend = &ctlSender{c: c, spin: spin}
		c.wg.Add(1)
	}
	c.wg.Add(1 + 2*nd)
	go c.onCPUs(cpus, c.ctlRecv.run)
	if c.ctlSend != nil {
		go c.onCPUs(cpus, c.ctlSend.run)
	}
	for k := range c.data {
		go c.onCPUs(cpus, c.senders[k].run)
		go c.onCPUs(cpus, c.receivers[k].run)
	}
	return c, nil
}

// Transport implements Connection.
func (c *ethConn) Transport() channels.Transport { return Transport }

// Handle implements Connection.
func (c *ethConn) Handle(ch *channels.ProxyChannel, t channels.Trigger) error {
	if err := c.Err(); err != nil {
		return err
	}
	c.produce.Lock()
	defer c.produce.Unlock()
	err := channels.RunSteps(c, ch, t)
	if serr := c.sendCtl(); err == nil {
		err = serr
	}
	return err
}

// Drain implements channels.Drainer: it waits until the control socket's sender has
// written every message queued so far.
func (c *ethConn) Drain() error {
	if c.ctlSend == nil {
		return nil
	}
	return c.ctlSend.drain()
}

// Err returns the error that broke the connection, if any.
func (c *ethConn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// fail records the first error, reports it, and shuts the sockets down so that every
// thread of the connection stops.
func (c *ethConn) fail(err error) {
	c.mu.Lock()
	first := c.err == nil
	if first {
		c.err = err
	}
	c.mu.Unlock()
	if first && !c.closing.Load() {
		c.onError(err)
	}
	if first {
		c.shutdown()
	}
}

// shutdown ends every socket's traffic and wakes the senders.
func (c *ethConn) shutdown() {
	if c.ctl != nil {
		c.ctl.shutdown()
	}
	for _, s := range c.data {
		s.shutdown()
	}
	for _, s := range c.senders {
		s.bell.ring()
	}
	if c.ctlSend != nil {
		c.ctlSend.bell.ring()
	}
}

// Write sends the trigger's bytes to the peer's registration: itself when they fit the
// inline slot, else through the data sockets' senders. A source in host-resident memory
// (Region.Host set: Mesh.ShareHost) is sent from there, with no copy out of GPU memory.
func (c *ethConn) Write(ch *channels.ProxyChannel, t channels.Trigger) error {
	size := t.Size()
	id, off, src := ch.Dst.ID, ch.Dst.Off+t.DstOffset(), ch.Src.Ptr().Add(t.SrcOffset())
	var host unsafe.Pointer
	if ch.Src.Host != nil {
		if t.SrcOffset() > ch.Src.Size || size > ch.Src.Size-t.SrcOffset() {
			return fmt.Errorf("ethernet to rank %d: source bytes [%d, +%d) overrun the %d-byte host-resident source", c.peer, t.SrcOffset(), size, ch.Src.Size)
		}
		host = unsafe.Add(ch.Src.Host, t.SrcOffset())
	}
	c.enqueued += size
	// A write of host-resident memory goes on the control socket up to inlineMax, straight
	// from where it lies, rather than dealt out to the data sockets' threads: with no copy
	// to overlap, one socket carries a small write sooner than waking the senders and
	// receivers (on 2xH200 over loopback, a 128 KiB write through the data sockets took
	// 150-230 us, a 32 KiB one on the control socket 35 us), but not a large one (allgather
	// hostput of 4 MiB: 714-903 us with 2 MiB writes on the control socket, 268-303 us on 12
	// data sockets). Above inlineMax it goes to the data sockets whatever its size, so that
	// no CUDA copy is on its path.
	if host != nil {
		if size <= c.inlineMax {
			c.sendInlineHost(id, off, host, size)
			return nil
		}
		return c.deal(segWrite, id, off, src, host, size)
	}
	if size <= uint64(len(c.inline.stage.Host)) {
		return c.sendInline(id, off, src, size)
	}
	return c.deal(segWrite, id, off, src, host, size)
}

// sendInlineHost sends a small write of host-resident memory on the control socket,
// straight from where it lies: it counts as staged once the control socket's sender has
// written it.
func (c *ethConn) sendInlineHost(id uint32, off uint64, host unsafe.Pointer, size uint64) {
	s := &c.inline
	putHeader(&s.hdr, ethMsgData, id, off, size, 0)
	c.ctlOut = append(c.ctlOut, ctlPart{s.hdr[:], true}, ctlPart{unsafe.Slice((*byte)(host), size), false})
}

// sendInline copies a small write out of GPU memory and sends it on the control socket.
func (c *ethConn) sendInline(id uint32, off uint64, src device.Ptr, size uint64) error {
	s := &c.inline
	if err := s.q.ToHost(s.stage, src, size); err != nil {
		return fmt.Errorf("copy out of GPU memory: %w", err)
	}
	if err := s.q.Wait(c.timeout); err != nil {
		return fmt.Errorf("copy out of GPU memory: %w", err)
	}
	c.staged.Add(size)
	putHeader(&s.hdr, ethMsgData, id, off, size, 0)
	c.ctlOut = append(c.ctlOut, ctlPart{s.hdr[:], true}, ctlPart{s.stage.Host[:size], true})
	c.ctlSync = true
	return nil
}

// sendCtl sends the control messages gathered in ctlOut, in one system call when the
// socket takes them all (a put and its signal travel together): it queues them for the
// control socket's sender, or writes them itself where they hold the proxy's staging slot
// (once that sender has nothing queued) or where there is no sender (no spin).
func (c *ethConn) sendCtl() error {
	if len(c.ctlOut) == 0 {
		return nil
	}
	defer func() {
		clear(c.ctlOut)
		c.ctlOut = c.ctlOut[:0]
		c.ctlSync = false
		c.dealt = false
	}()
	if c.ctlSend != nil && !c.ctlSync {
		return c.ctlSend.push(c.ctlOut, c.dealt)
	}
	if c.ctlSend != nil {
		if err := c.ctlSend.drain(); err != nil {
			return err
		}
	}
	bufs := c.ctlBufs[:0]
	host := uint64(0) // host-resident bytes: staged once written
	for _, p := range c.ctlOut {
		bufs = append(bufs, p.b)
		if !p.copy {
			host += uint64(len(p.b))
		}
	}
	c.ctlBufs = bufs
	defer clear(bufs)
	if err := c.ctl.writev(bufs...); err != nil {
		err = fmt.Errorf("ethernet to rank %d: control socket: %w", c.peer, err)
		c.fail(err)
		return err
	}
	c.staged.Add(host)
	return nil
}

// deal cuts size bytes into pieces and gives them to the data sockets in turn, starting
// with the socket after the last write's.
func (c *ethConn) deal(kind uint8, id uint32, off uint64, src device.Ptr, host unsafe.Pointer, size uint64) error {
	piece := c.pieceSize(size)
	pieces := (size + piece - 1) / piece
	nd := uint64(len(c.senders))
	for j := uint64(0); j < min(pieces, nd); j++ {
		k := (uint64(c.turn) + j) % nd
		s := c.senders[k]
		h := s.head.Load()
		if h-s.cursor.Load() >= ethQueueSize {
			err := c.await(func() bool { return h-s.cursor.Load() < ethQueueSize },
				func() string { return fmt.Sprintf("socket %d's sender has %d writes queued", k, h-s.cursor.Load()) })
			if err != nil {
				return err
			}
		}
		s.queue[h%ethQueueSize] = ethSeg{kind: kind, id: id, off: off, src: src, host: host, size: size, piece: piece, first: j, stride: nd}
		s.head.Store(h + 1)
		s.bell.ring()
		c.sent[k] += (pieces - j + nd - 1) / nd
	}
	c.turn = int((uint64(c.turn) + pieces) % nd)
	c.dealt = true
	return nil
}

// pieceSize cuts a write of size bytes for the data sockets (no more than c.spread of them
// where its pieces would be under SpreadPiece): each socket's share in
// c.pieces pieces, so that copies out of GPU memory overlap the socket within a write, but
// none smaller than half the chunk unless the share itself is (each piece costs a copy, a
// system call and a wake-up: on 2xH200 across 2 simulated hosts, writes of 16-64 MiB went
// fastest in 2 MiB pieces, slower in 1 MiB and 512 KiB ones, and slower in one 4 MiB
// piece per socket, whose copy nothing overlapped); in 4 KiB multiples, at least
// MinChunk, at most the chunk. Tried on the same machine on 2026-11-23 and slower or no
// better (docs/performance.md): pieces balanced over the sockets (a 32 MiB write on
// 12 sockets in 12 pieces of 2.67 MiB instead of 16 of 2 MiB: allreduce 7-15 % slower), a
// 256 KiB head piece per socket first, and pieces copied and sent in 512 KiB parts.
func (c *ethConn) pieceSize(size uint64) uint64 {
	nd := uint64(len(c.senders))
	if c.spread > 0 && c.spread < nd {
		nd = max(c.spread, min(nd, size/SpreadPiece))
	}
	share := (size + nd - 1) / nd
	piece := (share + c.pieces - 1) / c.pieces
	if floor := c.chunk / 2; piece < floor {
		piece = min(share, floor)
	}
	piece = (piece + 4095) &^ 4095
	return min(c.chunk, max(piece, MinChunk))
}

// Signal sends a mark that sets the peer's token to the channel's signal count.
func (c *ethConn) Signal(ch *channels.ProxyChannel) error {
	return c.sendMark(ch.Token.ID, ch.Token.Off, ch.Outbound())
}

// sendMark queues the next mark: set token (id, off) to value once the pieces dealt so
// far have landed.
func (c *ethConn) sendMark(id uint32, off, value uint64) error {
	c.sigSeq++
	var hdr [ethHeaderSize]byte
	putHeader(&hdr, ethMsgMark, id, off, value, c.sigSeq)
	copy(c.ctlBuf, hdr[:])
	for k, n := range c.sent {
		binary.LittleEndian.PutUint64(c.ctlBuf[ethHeaderSize+8*k:], n)
	}
	c.ctlOut = append(c.ctlOut, ctlPart{c.ctlBuf, true})
	return nil
}

// Flush waits until every byte written so far has been staged out of GPU memory (or,
// host-resident, written to its socket): it first sends the trigger's control messages,
// which may hold such bytes.
func (c *ethConn) Flush() error {
	if err := c.sendCtl(); err != nil {
		return err
	}
	target := c.enqueued
	return c.await(func() bool { return c.staged.Load() >= target },
		func() string { return fmt.Sprintf("%d of %d bytes left GPU memory", c.staged.Load(), target) })
}

// await polls until done returns true, the connection fails, or the timeout passes
// (state describes what was missing). It never sleeps: it runs on the proxy's thread,
// which spins anyway, and a Go sleep of microseconds lasts up to a millisecond (the
// runtime's poller waits in whole milliseconds); it yields the CPU every 64 polls instead
// (affinity.Yield says why not runtime.Gosched).
func (c *ethConn) await(done func() bool, state func() string) error {
	start := time.Now()
	for i := 0; ; i++ {
		if done() {
			return nil
		}
		if i&63 != 63 {
			continue
		}
		if err := c.Err(); err != nil {
			return err
		}
		if time.Since(start) > c.timeout {
			return fmt.Errorf("ethernet to rank %d: %w after %v (%s)", c.peer, errEthTimeout, c.timeout, state())
		}
		affinity.Yield()
	}
}

func putHeader(b *[ethHeaderSize]byte, kind uint8, id uint32, off, n, seq uint64) {
	b[0] = kind
	binary.LittleEndian.PutUint32(b[4:], id)
	binary.LittleEndian.PutUint64(b[8:], off)
	binary.LittleEndian.PutUint64(b[16:], n)
	binary.LittleEndian.PutUint64(b[24:], seq)
}

// Close implements Connection: it tells the peer that nothing more comes, stops the
// threads and frees the staging memory.
func (c *ethConn) Close() error {
	if c.closing.Swap(true) {
		return nil
	}
	var unsent error // control messages the sender could not write
	if c.Err() == nil {
		c.produce.Lock()
		for _, s := range c.senders {
			if h := s.head.Load(); h-s.cursor.Load() < ethQueueSize {
				s.queue[h%ethQueueSize] = ethSeg{kind: segBye}
				s.head.Store(h + 1)
				s.bell.ring()
			}
		}
		var bye [ethHeaderSize]byte
		putHeader(&bye, ethMsgBye, 0, 0, 0, 0)
		if c.ctlSend != nil {
			unsent = c.ctlSend.drain()
		}
		if unsent == nil { // the control sender is idle: the bye goes last
			c.ctl.writev(bye[:])
		}
		c.produce.Unlock()
		timer := time.NewTimer(min(c.timeout, 5*time.Second))
		for _, s := range c.senders {
			select {
			case <-s.done:
			case <-timer.C:
			}
		}
		timer.Stop()
	}
	close(c.stop)
	c.shutdown()
	c.wg.Wait()
	c.closeSocks()
	if err := c.free(); err != nil || unsent == nil {
		return err
	}
	return fmt.Errorf("ethernet to rank %d: control messages left unsent at close: %w", c.peer, unsent)
}

// stopped says whether Close has stopped the connection's threads.
func (c *ethConn) stopped() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
}

// closeSocks releases the sockets; no thread may use them any more.
func (c *ethConn) closeSocks() {
	if c.ctl != nil {
		c.ctl.close()
	}
	for _, s := range c.data {
		s.close()
	}
}

// free releases staging memory and queues.
func (c *ethConn) free() error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	release := func(slots ...ethSlot) {
		for _, s := range slots {
			if s.q != nil {
				keep(s.q.Close())
			}
			keep(c.copier.FreeStage(s.stage))
		}
	}
	release(c.inline)
	if c.ctlRecv != nil {
		release(c.ctlRecv.slots...)
	}
	for i := range c.senders {
		release(c.senders[i].slots...)
	}
	for i := range c.receivers {
		release(c.receivers[i].slots...)
	}
	if c.marks.q != nil {
		keep(c.marks.q.Close())
	}
	return first
}
