package ethernet

// The sender side of an Ethernet connection (connection.go): one thread per data
// socket copies its pieces of the proxy's writes out of GPU memory into staging slots and
// sends them, Depth copies in flight.

import (
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// ethSeg is a sender's share of a write: pieces first, first+stride, ... of it.
type ethSeg struct {
	kind   uint8
	id     uint32         // destination registration at the peer
	off    uint64         // offset of the write in it
	src    device.Ptr     // the write's source
	host   unsafe.Pointer // the source in host-resident memory (sent from there), or nil
	size   uint64         // the write's length
	piece  uint64         // piece length
	first  uint64
	stride uint64
}

// ethSender is the thread of one data socket that sends: it takes the segments the proxy
// queues for it, in order, and keeps its staging slots' copies ahead of the socket.
type ethSender struct {
	raw    []byte // source of raw bytes (allocated when first needed)
	c      *ethConn
	k      int
	sock   *ethSock
	queue  [ethQueueSize]ethSeg
	head   atomic.Uint64 // written by the proxy
	cursor atomic.Uint64 // written by the sender
	bell   doorbell
	done   chan struct{}
	slots  []ethSlot
	first  int // oldest slot with a copy not yet sent
	queued int
	mark   [ethHeaderSize]byte
	hdr    [ethHeaderSize]byte // header of a piece sent from host-resident memory
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
		if idx == s.head.Load() {
			if err := s.drain(); err != nil {
				return err
			}
			if c.Err() != nil {
				return nil // the connection broke: nothing more goes out
			}
			select {
			case <-c.stop:
				return nil
			default:
			}
			s.bell.wait(func() bool { return s.head.Load() != idx || c.Err() != nil }, 20*time.Millisecond)
			continue
		}
		seg := &s.queue[idx%ethQueueSize]
		switch seg.kind {
		case segRaw:
			if err := s.sendRaw(seg); err != nil {
				return err
			}
		case segWrite:
			if seg.host != nil {
				if err := s.sendHost(seg); err != nil {
					return err
				}
				break
			}
			for j := seg.first; j*seg.piece < seg.size; j += seg.stride {
				at := j * seg.piece
				if s.queued == len(s.slots) {
					if err := s.sendOldest(); err != nil {
						return err
					}
				}
				slot := &s.slots[(s.first+s.queued)%len(s.slots)]
				slot.n = min(seg.piece, seg.size-at)
				if err := slot.q.ToHost(slot.stage, seg.src.Add(at), slot.n); err != nil {
					return err
				}
				putHeader(&slot.hdr, ethMsgData, seg.id, seg.off+at, slot.n, 0)
				s.queued++
			}
		case segBye:
			if err := s.drain(); err != nil {
				return err
			}
			putHeader(&s.mark, ethMsgBye, 0, 0, 0, 0)
			if err := s.sock.writev(s.mark[:]); err != nil {
				return err
			}
			s.cursor.Store(idx + 1)
			return nil
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
	if err := s.sock.writev(slot.hdr[:], slot.stage.Host[:slot.n]); err != nil {
		return err
	}
	s.first = (s.first + 1) % len(s.slots)
	s.queued--
	return nil
}

// sendHost sends this sender's pieces of a write whose source is host-resident memory,
// from there, after the pieces queued before it; each counts as staged once the socket
// has taken it.
func (s *ethSender) sendHost(seg *ethSeg) error {
	if err := s.drain(); err != nil {
		return err
	}
	for j := seg.first; j*seg.piece < seg.size; j += seg.stride {
		at := j * seg.piece
		n := min(seg.piece, seg.size-at)
		putHeader(&s.hdr, ethMsgData, seg.id, seg.off+at, n, 0)
		if err := s.sock.writev(s.hdr[:], unsafe.Slice((*byte)(unsafe.Add(seg.host, at)), n)); err != nil {
			return err
		}
		s.c.staged.Add(n)
	}
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
