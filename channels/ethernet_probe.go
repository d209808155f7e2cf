package channels

import (
	"fmt"
	"time"
)

// The raw rate of a pair's Ethernet sockets: the same sockets and sender and receiver
// goroutines as a put, minus the copies between GPU and host memory and the GPU's
// signalling. Ping-pong prints it beside its Ethernet figures.

// ethProbeID is the token id of a probe's closing mark: the receiver reports it instead of
// storing a token.
const ethProbeID = 0xffffffff

// tagProbe is the bootstrap tag of the receiver's answer.
const tagProbe = 0x4d420002

// MeasureTCP measures how fast rank from's Ethernet sockets carry bytes to rank to: from
// sends bytes of host memory over all of them, and to answers over the bootstrap once the
// last has arrived. Both ranks of the pair call it (the proxy must be idle); it returns
// the rate in GB/s (1e9 bytes per second) on from, 0 on to.
func (m *Mesh) MeasureTCP(from, to int, bytes uint64) (float64, error) {
	peer := to
	if m.Rank == to {
		peer = from
	}
	c, ok := m.Conns[peer].(*ethConn)
	if !ok || from == to || (m.Rank != from && m.Rank != to) {
		return 0, fmt.Errorf("rank %d: ranks %d and %d are not an Ethernet pair of this rank", m.Rank, from, to)
	}
	if m.Rank == to {
		select {
		case <-c.probes:
		case <-time.After(m.Opts.Timeout):
			return 0, fmt.Errorf("rank %d: %d raw bytes from rank %d did not arrive within %v", m.Rank, bytes, from, m.Opts.Timeout)
		}
		return 0, m.Boot.Send(from, tagProbe, nil)
	}
	start := time.Now()
	if err := c.raw(bytes); err != nil {
		return 0, err
	}
	if _, err := m.Boot.Recv(to, tagProbe); err != nil {
		return 0, fmt.Errorf("rank %d: waiting for rank %d to receive %d raw bytes: %w", m.Rank, to, bytes, err)
	}
	return float64(bytes) / time.Since(start).Seconds() / 1e9, nil
}

// raw deals bytes of raw data out to the data sockets, like a write, and sends the mark
// that closes them.
func (c *ethConn) raw(bytes uint64) error {
	c.produce.Lock()
	defer c.produce.Unlock()
	if err := c.Err(); err != nil {
		return err
	}
	if err := c.deal(segRaw, 0, 0, 0, bytes); err != nil {
		return err
	}
	if err := c.sendMark(ethProbeID, 0, c.sigSeq+1); err != nil {
		return err
	}
	return c.sendCtl()
}

// sendRaw sends this sender's share of a raw segment: pieces of zeros.
func (s *ethSender) sendRaw(seg *ethSeg) error {
	if err := s.drain(); err != nil { // keep the socket's order simple: staged pieces first
		return err
	}
	for j := seg.first; j*seg.piece < seg.size; j += seg.stride {
		n := min(seg.piece, seg.size-j*seg.piece)
		if uint64(len(s.raw)) < n {
			s.raw = make([]byte, s.c.chunk)
		}
		putHeader(&s.mark, ethMsgRaw, 0, 0, n, 0)
		if err := s.sock.writev(s.mark[:], s.raw[:n]); err != nil {
			return err
		}
	}
	return nil
}

// discard reads n raw bytes and drops them.
func (r *ethReceiver) discard(n uint64) error {
	if n == 0 || n > r.c.recvChunk {
		return fmt.Errorf("a %d-byte raw piece (at most %d)", n, r.c.recvChunk)
	}
	if uint64(len(r.raw)) < n {
		r.raw = make([]byte, r.c.recvChunk)
	}
	return r.sock.readFull(r.raw[:n])
}
