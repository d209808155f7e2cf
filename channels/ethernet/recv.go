package ethernet

// The receiving side of an Ethernet connection (connection.go): one thread per
// socket reads each message into a staging slot and copies it into GPU memory (or reads it
// straight into host-resident memory); the mark table applies each signal once the pieces
// sent before it have landed.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
)

// ethReceiver is the thread of one socket (a data socket, or the control socket with k -1)
// that receives.
type ethReceiver struct {
	raw     []byte // where raw bytes (data sockets) or a mark's counts (control) are read to
	c       *ethConn
	k       int // data socket index; -1 for the control socket
	sock    *ethReader
	slots   []ethSlot
	oldest  int // oldest slot whose copy into GPU memory may still run
	pending int // slots with such copies
	gotBye  bool
	need    []uint64 // the control socket: the last mark's piece counts
}

// markTable applies signals once every data socket has landed the pieces sent before them.
type markTable struct {
	mu     sync.Mutex
	landed []uint64  // per data socket: pieces in GPU memory
	queue  []ethMark // received, not yet applied, in order
	last   uint64    // sequence number of the last mark received
	q      CopyQueue // stores of tokens in GPU memory
}

// ethMark is a signal as a mark message carries it: set token (id, off) to value once
// need[k] pieces of data socket k have landed.
type ethMark struct {
	id         uint32
	off, value uint64
	seq        uint64
	need       []uint64
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
	name := fmt.Sprintf("socket %d", r.k)
	if r.k < 0 {
		name = "control socket"
	}
	r.c.fail(fmt.Errorf("%s: receive: %w", name, err))
}

func (r *ethReceiver) loop() error {
	c := r.c
	var hdr [ethHeaderSize]byte
	for {
		// Before waiting for more bytes, finish the copies under way: a mark may wait
		// for them.
		if r.pending > 0 && !r.sock.readable() {
			if err := r.settle(r.pending); err != nil {
				return err
			}
		}
		if err := r.sock.readFull(hdr[:]); err != nil {
			return err
		}
		id := binary.LittleEndian.Uint32(hdr[4:])
		off := binary.LittleEndian.Uint64(hdr[8:])
		n := binary.LittleEndian.Uint64(hdr[16:])
		seq := binary.LittleEndian.Uint64(hdr[24:])
		switch {
		case hdr[0] == ethMsgData:
			// A data socket's pieces fit one slot (the sender's pieces are at most our
			// chunk, and each counts as one landed piece); the control socket also carries
			// writes of host-resident memory up to MaxInline (the sender's Options.Inline).
			most := uint64(len(r.slots[0].stage.Host))
			limit := most
			if r.k < 0 {
				limit = max(most, MaxInline)
			}
			if n == 0 || n > limit {
				return fmt.Errorf("a %d-byte piece (at most %d)", n, limit)
			}
			mem, err := c.reg.Span(id, off, n)
			if err != nil {
				return err
			}
			if mem.Host != nil {
				if err := r.readHost(mem, off, n); err != nil {
					return err
				}
				continue
			}
			// Into GPU memory through the staging slots: a write from host-resident memory
			// on the control socket may be larger than one slot.
			for at := uint64(0); at < n; at += most {
				if r.pending == len(r.slots) {
					if err := r.settle(1); err != nil {
						return err
					}
				}
				k := min(most, n-at)
				slot := &r.slots[(r.oldest+r.pending)%len(r.slots)]
				if err := r.sock.readFull(slot.stage.Host[:k]); err != nil {
					return err
				}
				if err := slot.q.ToDevice(mem.Ptr.Add(off+at), slot.stage, k); err != nil {
					return fmt.Errorf("copy into GPU memory: %w", err)
				}
				r.pending++
			}
		case hdr[0] == ethMsgMark && r.k < 0:
			need := make([]uint64, len(c.receivers))
			b := r.raw[:8*len(need)]
			if err := r.sock.readFull(b); err != nil {
				return err
			}
			for k := range need {
				need[k] = binary.LittleEndian.Uint64(b[8*k:])
			}
			// A mark that waits for new data-socket pieces comes from a large write; the
			// next message comes after the next one's pieces: sleep for it rather than
			// poll (Options.Spin). Until the next mark, small writes are read sleeping too.
			r.sock.sock.rest.Store(morePieces(r.need, need))
			r.need = need
			// Writes sent on this socket before the mark land first.
			if err := r.settle(r.pending); err != nil {
				return err
			}
			if err := c.marks.add(c, ethMark{id: id, off: off, value: n, seq: seq, need: need}); err != nil {
				return err
			}
		case hdr[0] == ethMsgRaw && r.k >= 0:
			if err := r.discard(n); err != nil {
				return err
			}
			if err := c.marks.land(c, r.k, 1); err != nil {
				return err
			}
		case hdr[0] == ethMsgBye:
			r.gotBye = true
			return r.settle(r.pending)
		default:
			return fmt.Errorf("unexpected message type %d", hdr[0])
		}
	}
}

// morePieces says whether a mark's piece counts (need) exceed the last mark's (last; nil
// before the first mark) on any data socket.
func morePieces(last, need []uint64) bool {
	for k, n := range need {
		if last == nil && n > 0 || last != nil && n > last[k] {
			return true
		}
	}
	return false
}

// readHost reads a data message straight into host-resident memory: the bytes have
// landed once read. A data socket's piece counts as landed after the pieces before it.
func (r *ethReceiver) readHost(mem channels.LocalMemory, off, n uint64) error {
	if err := r.sock.readFull(unsafe.Slice((*byte)(unsafe.Add(mem.Host, off)), n)); err != nil {
		return err
	}
	if r.k < 0 {
		return nil
	}
	if err := r.settle(r.pending); err != nil {
		return err
	}
	return r.c.marks.land(r.c, r.k, 1)
}

// settle waits until the count oldest copies into GPU memory have finished, and counts
// them as landed.
func (r *ethReceiver) settle(count int) error {
	for i := 0; i < count; i++ {
		if err := r.slots[r.oldest].q.Wait(r.c.timeout); err != nil {
			return fmt.Errorf("copy into GPU memory: %w", err)
		}
		r.oldest = (r.oldest + 1) % len(r.slots)
		r.pending--
	}
	if count == 0 || r.k < 0 {
		return nil
	}
	return r.c.marks.land(r.c, r.k, uint64(count))
}

// add queues mark m (marks arrive in order) and applies what is ready.
func (t *markTable) add(c *ethConn, m ethMark) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m.seq != t.last+1 {
		return fmt.Errorf("mark %d after mark %d", m.seq, t.last)
	}
	t.last = m.seq
	t.queue = append(t.queue, m)
	return t.apply(c)
}

// land counts n more pieces of data socket k in GPU memory and applies what is ready.
func (t *markTable) land(c *ethConn, k int, n uint64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.landed[k] += n
	return t.apply(c)
}

// apply stores, in order, every queued signal whose pieces have all landed.
func (t *markTable) apply(c *ethConn) error {
	for len(t.queue) > 0 {
		m := t.queue[0]
		for k, n := range m.need {
			if t.landed[k] < n {
				return nil
			}
		}
		t.queue = t.queue[1:]
		if err := t.store(c, m); err != nil {
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
	mem, err := c.reg.Span(s.id, s.off, 8)
	if err != nil {
		return fmt.Errorf("signal: %w", err)
	}
	if (uint64(mem.Ptr)+s.off)%8 != 0 {
		return fmt.Errorf("signal: token at offset %d of memory %d is not 8-byte aligned", s.off, s.id)
	}
	if mem.Host != nil {
		atomic.StoreUint64((*uint64)(unsafe.Add(mem.Host, s.off)), s.value)
		return nil
	}
	return t.q.Store64(mem.Ptr.Add(s.off), s.value)
}
