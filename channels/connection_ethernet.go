package channels

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// ethConn connects two ranks over TCP: several sockets per peer, each used in both
// directions, and GPU data staged through pinned host memory.
//
// Sending. The proxy's writes and signals go into a ring of requests (no allocation, no
// blocking unless the ring is full). One sender goroutine per socket walks the ring: it
// claims pieces of each write (so a large write is spread over every socket), copies each
// piece from GPU memory into a staging slot and sends it, keeping Depth copies in flight so
// that the copies overlap the socket. At a signal every sender first sends its pending
// pieces, then a mark.
//
// Receiving. One receiver goroutine per socket reads each piece into a staging slot and
// queues its copy into GPU memory, Depth copies in flight. At a mark it waits for its
// copies to finish. A signal is applied (the token stored) once every socket has passed its
// mark: each socket is in order, so by then every piece sent before the signal has landed.
// Signals are applied in order.
//
// Flush waits until every byte written so far has been copied out of GPU memory (the
// source may then change); it does not wait for the peer.
type ethConn struct {
	peer      int
	timeout   time.Duration
	socks     []net.Conn
	chunk     uint64 // largest piece this side sends (the peer's receive slots hold it)
	recvChunk uint64 // largest piece the peer may send
	copier    Copier
	reg       *registry
	onError   func(error)

	items     []ethItem // ring of requests from the proxy
	head      atomic.Uint64
	minCursor uint64 // proxy only: last seen lowest sender cursor
	enqueued  uint64 // proxy only: bytes written so far
	staged    atomic.Uint64
	sigSeq    uint64 // proxy only
	senders   []*ethSender

	receivers []*ethReceiver
	marks     markTable

	produce sync.Mutex  // the proxy is the ring's one producer, but MeasureTCP queues too
	probes  chan uint64 // sequence numbers of probe marks received (ethernet_probe.go)

	stop    chan struct{}
	closing atomic.Bool
	wg      sync.WaitGroup
	mu      sync.Mutex
	err     error
}

const (
	ethRingSize   = 1024 // requests the proxy may queue ahead of the senders
	ethHeaderSize = 32

	ethMsgData = 1 // a piece of a write: dst id, offset, length; payload follows
	ethMsgMark = 2 // a signal's mark: token id, offset, value, sequence number
	ethMsgBye  = 3 // nothing more will come on this socket
	ethMsgRaw  = 4 // bytes to discard: the raw socket rate (ethernet_probe.go)

	itemWrite = 1
	itemMark  = 2
	itemBye   = 3
	itemRaw   = 4
)

// ethItem is one request in the ring. A write's pieces are claimed through next.
type ethItem struct {
	kind  uint8
	id    uint32 // destination (write) or token (signal) registration at the peer
	off   uint64 // offset in it
	size  uint64 // write: bytes; signal: the token value
	seq   uint64 // signal: sequence number
	src   device.Ptr
	chunk uint64
	next  atomic.Uint64
}

// ethSlot is a staging slot and the queue its copies run on.
type ethSlot struct {
	stage Stage
	q     CopyQueue
	hdr   [ethHeaderSize]byte
	n     uint64
	busy  bool // receiver: a copy into GPU memory may still be running
}

type ethSender struct {
	raw    []byte // source of raw bytes (allocated when first needed)
	c      *ethConn
	k      int
	sock   net.Conn
	cursor atomic.Uint64
	wake   chan struct{}
	done   chan struct{}
	slots  []ethSlot
	first  int // oldest slot with a copy not yet sent
	queued int
	vec    [2][]byte
	bufs   net.Buffers
	mark   [ethHeaderSize]byte
}

type ethReceiver struct {
	raw    []byte // where raw bytes are read to
	c      *ethConn
	k      int
	sock   net.Conn
	slots  []ethSlot
	next   int
	gotBye bool
}

// markTable applies signals once every socket has passed their marks.
type markTable struct {
	mu      sync.Mutex
	passed  []uint64 // per receiver: sequence number of the last mark it passed
	applied uint64
	pending map[uint64]ethMark
	q       CopyQueue // stores of tokens in GPU memory
}

// ethMark is a signal as a mark message carries it: set token (id, off) to value.
type ethMark struct {
	id         uint32
	off, value uint64
	seq        uint64
}

func newEthConn(peer int, socks []net.Conn, chunk, recvChunk uint64, depth int, timeout time.Duration, copier Copier, reg *registry, onError func(error), cpus affinity.Set) (_ *ethConn, err error) {
	c := &ethConn{peer: peer, timeout: timeout, socks: socks, chunk: chunk, recvChunk: recvChunk, copier: copier, reg: reg,
		onError: onError, items: make([]ethItem, ethRingSize), stop: make(chan struct{}), probes: make(chan uint64, 4)}
	c.marks.passed = make([]uint64, len(socks))
	c.marks.pending = map[uint64]ethMark{}
	defer func() {
		if err != nil {
			c.closing.Store(true)
			closeAll(socks)
			c.free()
		}
	}()
	if c.marks.q, err = copier.NewQueue(); err != nil {
		return nil, err
	}
	slots := func(n uint64) ([]ethSlot, error) {
		out := make([]ethSlot, depth)
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
	for k, sock := range socks {
		s := &ethSender{c: c, k: k, sock: sock, wake: make(chan struct{}, 1), done: make(chan struct{})}
		r := &ethReceiver{c: c, k: k, sock: sock}
		c.senders = append(c.senders, s)
		c.receivers = append(c.receivers, r)
		if s.slots, err = slots(chunk); err != nil {
			return nil, err
		}
		if r.slots, err = slots(recvChunk); err != nil {
			return nil, err
		}
	}
	for i := range socks {
		c.wg.Add(2)
		go c.onCPUs(cpus, c.senders[i].run)
		go c.onCPUs(cpus, c.receivers[i].run)
	}
	return c, nil
}

// Transport implements Connection.
func (c *ethConn) Transport() Transport { return TransportEthernet }

// Handle implements Connection.
func (c *ethConn) Handle(ch *ProxyChannel, t Trigger) error {
	if err := c.Err(); err != nil {
		return err
	}
	c.produce.Lock()
	defer c.produce.Unlock()
	return runSteps(c, ch, t)
}

// Err returns the error that broke the connection, if any.
func (c *ethConn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// fail records the first error, reports it, and closes the sockets so that every
// goroutine of the connection stops.
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
		closeAll(c.socks)
	}
}

// write queues the trigger's bytes of GPU memory for the peer's registration.
func (c *ethConn) write(ch *ProxyChannel, t Trigger) error {
	it, err := c.slot()
	if err != nil {
		return err
	}
	size := t.Size()
	it.kind, it.id, it.off, it.size, it.src = itemWrite, ch.Dst.ID, ch.Dst.Off+t.DstOffset(), size, ch.Src.Ptr().Add(t.SrcOffset())
	it.chunk = c.pieceSize(size)
	it.next.Store(0)
	c.enqueued += size
	c.publish()
	return nil
}

// pieceSize spreads size bytes over the sockets in pieces of at least EthMinChunk (4 KiB
// multiples) and at most the chunk.
func (c *ethConn) pieceSize(size uint64) uint64 {
	per := (size + uint64(len(c.senders)) - 1) / uint64(len(c.senders))
	per = (per + 4095) &^ 4095
	return min(c.chunk, max(per, EthMinChunk))
}

// signal queues a mark that sets the peer's token to the channel's signal count.
func (c *ethConn) signal(ch *ProxyChannel) error {
	it, err := c.slot()
	if err != nil {
		return err
	}
	c.sigSeq++
	it.kind, it.id, it.off, it.size, it.seq = itemMark, ch.Token.ID, ch.Token.Off, ch.outbound, c.sigSeq
	c.publish()
	return nil
}

// flush waits until every byte written so far has been staged out of GPU memory.
func (c *ethConn) flush() error {
	target := c.enqueued
	return c.await(func() bool { return c.staged.Load() >= target },
		func() string { return fmt.Sprintf("%d of %d bytes left GPU memory", c.staged.Load(), target) })
}

// slot returns the ring entry at the head, waiting while every entry is still in use.
func (c *ethConn) slot() (*ethItem, error) {
	h := c.head.Load()
	if h-c.minCursor >= uint64(len(c.items)) {
		err := c.await(func() bool {
			c.minCursor = h
			for _, s := range c.senders {
				c.minCursor = min(c.minCursor, s.cursor.Load())
			}
			return h-c.minCursor < uint64(len(c.items))
		}, func() string { return fmt.Sprintf("%d requests queued", h-c.minCursor) })
		if err != nil {
			return nil, err
		}
	}
	return &c.items[h%uint64(len(c.items))], nil
}

// publish makes the entry at the head visible to the senders and wakes them.
func (c *ethConn) publish() {
	c.head.Add(1)
	for _, s := range c.senders {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// await spins, then sleeps, until done returns true, the connection fails, or the timeout
// passes (state describes what was missing).
func (c *ethConn) await(done func() bool, state func() string) error {
	start := time.Now()
	for i := 0; ; i++ {
		if done() {
			return nil
		}
		if err := c.Err(); err != nil {
			return err
		}
		switch {
		case i < 1000:
			runtime.Gosched()
		case time.Since(start) > c.timeout:
			return fmt.Errorf("ethernet to rank %d: %w after %v (%s)", c.peer, errEthTimeout, c.timeout, state())
		default:
			time.Sleep(20 * time.Microsecond)
		}
	}
}

func putHeader(b *[ethHeaderSize]byte, kind uint8, id uint32, off, n, seq uint64) {
	b[0] = kind
	binary.LittleEndian.PutUint32(b[4:], id)
	binary.LittleEndian.PutUint64(b[8:], off)
	binary.LittleEndian.PutUint64(b[16:], n)
	binary.LittleEndian.PutUint64(b[24:], seq)
}

func (s *ethSender) run() {
	defer s.c.wg.Done()
	defer close(s.done)
	if err := s.loop(); err != nil {
		s.c.fail(fmt.Errorf("socket %d: send: %w", s.k, err))
	}
}

func (s *ethSender) loop() error {
	c := s.c
	for {
		idx := s.cursor.Load()
		if idx == c.head.Load() {
			if err := s.drain(); err != nil {
				return err
			}
			if idx != c.head.Load() {
				continue
			}
			select {
			case <-s.wake:
			case <-c.stop:
				return nil
			}
			continue
		}
		it := &c.items[idx%uint64(len(c.items))]
		switch it.kind {
		case itemRaw:
			if err := s.sendRaw(it); err != nil {
				return err
			}
		case itemWrite:
			for {
				off := it.next.Add(it.chunk) - it.chunk
				if off >= it.size {
					break
				}
				if s.queued == len(s.slots) {
					if err := s.sendOldest(); err != nil {
						return err
					}
				}
				slot := &s.slots[(s.first+s.queued)%len(s.slots)]
				slot.n = min(it.chunk, it.size-off)
				if err := slot.q.ToHost(slot.stage, it.src.Add(off), slot.n); err != nil {
					return err
				}
				putHeader(&slot.hdr, ethMsgData, it.id, it.off+off, slot.n, 0)
				s.queued++
			}
		case itemMark, itemBye:
			if err := s.drain(); err != nil {
				return err
			}
			kind := uint8(ethMsgMark)
			if it.kind == itemBye {
				kind = ethMsgBye
			}
			putHeader(&s.mark, kind, it.id, it.off, it.size, it.seq)
			if _, err := s.sock.Write(s.mark[:]); err != nil {
				return err
			}
			if it.kind == itemBye {
				s.cursor.Store(idx + 1)
				return nil
			}
		}
		s.cursor.Store(idx + 1)
	}
}

// sendOldest waits for the oldest slot's copy out of GPU memory and sends it.
func (s *ethSender) sendOldest() error {
	slot := &s.slots[s.first]
	if err := slot.q.Wait(s.c.timeout); err != nil {
		return fmt.Errorf("copy out of GPU memory: %w", err)
	}
	s.c.staged.Add(slot.n)
	s.vec[0], s.vec[1] = slot.hdr[:], slot.stage.Host[:slot.n]
	s.bufs = s.vec[:]
	if _, err := s.bufs.WriteTo(s.sock); err != nil {
		return err
	}
	s.first = (s.first + 1) % len(s.slots)
	s.queued--
	return nil
}

func (s *ethSender) drain() error {
	for s.queued > 0 {
		if err := s.sendOldest(); err != nil {
			return err
		}
	}
	return nil
}

func (r *ethReceiver) run() {
	defer r.c.wg.Done()
	err := r.loop()
	if err == nil || r.c.closing.Load() {
		return
	}
	if !r.gotBye && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET)) {
		err = fmt.Errorf("lost (%v): did rank %d stop?", err, r.c.peer)
	}
	r.c.fail(fmt.Errorf("socket %d: receive: %w", r.k, err))
}

func (r *ethReceiver) loop() error {
	c := r.c
	var hdr [ethHeaderSize]byte
	for {
		if _, err := io.ReadFull(r.sock, hdr[:]); err != nil {
			return err
		}
		id := binary.LittleEndian.Uint32(hdr[4:])
		off := binary.LittleEndian.Uint64(hdr[8:])
		n := binary.LittleEndian.Uint64(hdr[16:])
		seq := binary.LittleEndian.Uint64(hdr[24:])
		switch hdr[0] {
		case ethMsgData:
			if n == 0 || n > c.recvChunk {
				return fmt.Errorf("a %d-byte piece (at most %d)", n, c.recvChunk)
			}
			mem, err := c.reg.span(id, off, n)
			if err != nil {
				return err
			}
			slot := &r.slots[r.next]
			if err := r.settle(slot); err != nil {
				return err
			}
			if _, err := io.ReadFull(r.sock, slot.stage.Host[:n]); err != nil {
				return err
			}
			if err := slot.q.ToDevice(mem.ptr.Add(off), slot.stage, n); err != nil {
				return fmt.Errorf("copy into GPU memory: %w", err)
			}
			slot.busy = true
			r.next = (r.next + 1) % len(r.slots)
		case ethMsgMark:
			for i := range r.slots {
				if err := r.settle(&r.slots[i]); err != nil {
					return err
				}
			}
			if err := c.marks.pass(c, r.k, ethMark{id: id, off: off, value: n, seq: seq}); err != nil {
				return err
			}
		case ethMsgRaw:
			if err := r.discard(n); err != nil {
				return err
			}
		case ethMsgBye:
			r.gotBye = true
			return nil
		default:
			return fmt.Errorf("unknown message type %d", hdr[0])
		}
	}
}

// settle waits until the slot's copy into GPU memory has finished.
func (r *ethReceiver) settle(slot *ethSlot) error {
	if !slot.busy {
		return nil
	}
	if err := slot.q.Wait(r.c.timeout); err != nil {
		return fmt.Errorf("copy into GPU memory: %w", err)
	}
	slot.busy = false
	return nil
}

// pass records that receiver k passed mark m, and applies, in order, every signal that
// all receivers have now passed.
func (t *markTable) pass(c *ethConn, k int, m ethMark) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m.seq != t.passed[k]+1 {
		return fmt.Errorf("mark %d after mark %d", m.seq, t.passed[k])
	}
	t.passed[k] = m.seq
	if _, ok := t.pending[m.seq]; !ok && m.seq > t.applied {
		t.pending[m.seq] = m
	}
	low := t.passed[0]
	for _, p := range t.passed {
		low = min(low, p)
	}
	for t.applied < low {
		t.applied++
		s := t.pending[t.applied]
		delete(t.pending, t.applied)
		if err := t.store(c, s); err != nil {
			return err
		}
	}
	return nil
}

// store sets a token of this rank: a CPU store when it is in host memory mapped here,
// else a 64-bit write into GPU memory.
func (t *markTable) store(c *ethConn, s ethMark) error {
	if s.id == ethProbeID {
		select {
		case c.probes <- s.value:
		default: // nobody measures: drop it
		}
		return nil
	}
	mem, err := c.reg.span(s.id, s.off, 8)
	if err != nil {
		return fmt.Errorf("signal: %w", err)
	}
	if (uint64(mem.ptr)+s.off)%8 != 0 {
		return fmt.Errorf("signal: token at offset %d of memory %d is not 8-byte aligned", s.off, s.id)
	}
	if mem.host != nil {
		atomic.StoreUint64((*uint64)(unsafe.Add(mem.host, s.off)), s.value)
		return nil
	}
	return t.q.Store64(mem.ptr.Add(s.off), s.value)
}

// Close implements Connection: it tells the peer that nothing more comes, stops the
// goroutines and frees the staging memory.
func (c *ethConn) Close() error {
	if c.closing.Swap(true) {
		return nil
	}
	if c.Err() == nil {
		c.produce.Lock()
		if it, err := c.slot(); err == nil {
			it.kind = itemBye
			c.publish()
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
	closeAll(c.socks)
	c.wg.Wait()
	return c.free()
}

// free releases staging memory and queues.
func (c *ethConn) free() error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	release := func(slots []ethSlot) {
		for _, s := range slots {
			if s.q != nil {
				keep(s.q.Close())
			}
			keep(c.copier.FreeStage(s.stage))
		}
	}
	for i := range c.senders {
		release(c.senders[i].slots)
		release(c.receivers[i].slots)
	}
	if c.marks.q != nil {
		keep(c.marks.q.Close())
	}
	return first
}
