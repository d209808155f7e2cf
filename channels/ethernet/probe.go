package ethernet

import (
	"fmt"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
)

// The raw rate of a pair's Ethernet sockets: the same sockets and sender and receiver
// goroutines as a put, minus the copies between GPU and host memory and the GPU's
// signalling. Ping-pong prints it beside its Ethernet figures.

// ethProbeID is the token id of a probe's closing mark: the receiver reports it instead of
// storing a token.
const ethProbeID = 0xffffffff

// tagProbe is the bootstrap tag of the receiver's answer.
const tagProbe = 0x4d420002

// MeasureTCP measures how fast rank from's Ethernet sockets in mesh m carry bytes to rank to: from
// sends bytes of host memory over all of them, and to answers over the bootstrap once the
// last has arrived. Both ranks of the pair call it (the proxy must be idle); it returns
// the rate in GB/s (1e9 bytes per second) on from, 0 on to.
func MeasureTCP(m *channels.Mesh, from, to int, bytes uint64) (float64, error) {
	c, peer, err := ethPair(m, from, to)
	if err != nil {
		return 0, err
	}
	if m.Rank == to {
		if err := awaitProbe(m, c, peer, bytes); err != nil {
			return 0, err
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

// MeasureTCPBothWays measures mesh m's pair a, b's Ethernet sockets carrying bytes in both
// directions at once, as a collective's puts do: each rank sends bytes of host memory to
// the other while receiving the other's, and answers over the bootstrap once the other's
// last byte has arrived. Both ranks call it (their proxies must be idle); each returns the
// rate of its own direction in GB/s.
func MeasureTCPBothWays(m *channels.Mesh, a, b int, bytes uint64) (float64, error) {
	c, peer, err := ethPair(m, a, b)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	sent := make(chan error, 1)
	go func() { sent <- c.raw(bytes) }()
	if err := awaitProbe(m, c, peer, bytes); err != nil {
		return 0, err
	}
	if err := m.Boot.Send(peer, tagProbe, nil); err != nil {
		return 0, err
	}
	if err := <-sent; err != nil {
		return 0, err
	}
	if _, err := m.Boot.Recv(peer, tagProbe); err != nil {
		return 0, fmt.Errorf("rank %d: waiting for rank %d to receive %d raw bytes: %w", m.Rank, peer, bytes, err)
	}
	return float64(bytes) / time.Since(start).Seconds() / 1e9, nil
}

// ethPair returns this rank's Ethernet connection to the other rank of the pair a, b.
func ethPair(m *channels.Mesh, a, b int) (*ethConn, int, error) {
	peer := b
	if m.Rank == b {
		peer = a
	}
	c, ok := m.Conns[peer].(*ethConn)
	if !ok || a == b || (m.Rank != a && m.Rank != b) {
		return nil, 0, fmt.Errorf("rank %d: ranks %d and %d are not an Ethernet pair of this rank", m.Rank, a, b)
	}
	return c, peer, nil
}

// awaitProbe waits for the closing mark of peer's raw bytes.
func awaitProbe(m *channels.Mesh, c *ethConn, peer int, bytes uint64) error {
	select {
	case <-c.probes:
		return nil
	case <-time.After(m.Opts.Timeout):
		return fmt.Errorf("rank %d: %d raw bytes from rank %d did not arrive within %v", m.Rank, bytes, peer, m.Opts.Timeout)
	}
}

// raw deals bytes of raw data out to the data sockets, like a write, and sends the mark
// that closes them.
func (c *ethConn) raw(bytes uint64) error {
	c.produce.Lock()
	defer c.produce.Unlock()
	if err := c.Err(); err != nil {
		return err
	}
	if err := c.deal(segRaw, 0, 0, 0, nil, bytes); err != nil {
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
