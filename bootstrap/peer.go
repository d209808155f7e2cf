package bootstrap

import (
	"bufio"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"
)

// peer is everything this rank knows about one other rank (or itself).
type peer struct {
	rank int

	mu      sync.Mutex
	addr    netip.AddrPort // the peer's listener
	conns   []*peerConn    // live connections (usually one)
	send    *peerConn      // the connection this rank sends on
	dialing chan struct{}  // non-nil while a dial is in progress
	inbox   map[msgKey][][]byte
	lost    error         // first failure of a connection that ended without bye
	err     error         // set once the peer is gone; Recv drains inbox first
	wake    chan struct{} // closed and replaced on every change
}

// lostGrace is how long the other connections to a peer may live on after
// one of them failed without bye: long enough to deliver what a crashed
// peer sent on them before dying, short enough to fail Recv promptly.
const lostGrace = 200 * time.Millisecond

// msgKey selects a message queue: user data by tag, collectives by sequence.
type msgKey struct {
	typ frameType
	tag int64
}

// peerConn is one established connection to a peer.
type peerConn struct {
	c      net.Conn
	wmu    sync.Mutex // serializes frames
	shut   bool       // write side closed (bye sent or peer said bye); guarded by wmu
	gotBye bool       // the peer said bye on this connection; guarded by peer.mu
	done   chan struct{}
}

func newPeer(rank int) *peer {
	return &peer{rank: rank, inbox: map[msgKey][][]byte{}, wake: make(chan struct{})}
}

// settleLocked decides whether the peer is gone: once no connection is
// left that has not said bye (every peer sends bye on all its connections
// after its last message, and each connection is FIFO, so by then all its
// messages are in the inbox). It also notifies waiters.
func (p *peer) settleLocked() {
	if p.err == nil {
		live := 0
		for _, pc := range p.conns {
			if !pc.gotBye {
				live++
			}
		}
		switch {
		case live > 0:
		case p.lost != nil:
			p.err = fmt.Errorf("%w: %v", ErrPeerLost, p.lost)
		default:
			p.err = ErrPeerClosed
		}
	}
	p.notifyLocked()
}

func (p *peer) notifyLocked() {
	close(p.wake)
	p.wake = make(chan struct{})
}

func (p *peer) deliver(k msgKey, data []byte) {
	p.mu.Lock()
	p.inbox[k] = append(p.inbox[k], data)
	p.notifyLocked()
	p.mu.Unlock()
}

// addrString is the peer's listener address for error messages.
func (p *peer) addrString() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.addr.IsValid() {
		return "address unknown"
	}
	return p.addr.String()
}

// shutdown sends bye and half-closes the write side, once.
func (pc *peerConn) shutdown(grace time.Duration) {
	pc.wmu.Lock()
	defer pc.wmu.Unlock()
	if pc.shut {
		return
	}
	pc.shut = true
	pc.c.SetWriteDeadline(time.Now().Add(grace))
	writeFrame(pc.c, frameBye, 0, nil)
	if cw, ok := pc.c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}

// closeWrite half-closes after the peer said bye, so its Close completes.
func (pc *peerConn) closeWrite() {
	pc.wmu.Lock()
	defer pc.wmu.Unlock()
	if pc.shut {
		return
	}
	pc.shut = true
	if cw, ok := pc.c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}

// addConnLocked adopts an established connection to rank and starts its
// reader. b.mu must be held and the bootstrap not closed.
func (b *TCPBootstrap) addConnLocked(rank int, c net.Conn, listen netip.AddrPort) {
	c.SetDeadline(time.Time{})
	p := b.peers[rank]
	pc := &peerConn{c: c, done: make(chan struct{})}
	p.mu.Lock()
	if !p.addr.IsValid() {
		p.addr = listen
	}
	p.conns = append(p.conns, pc)
	if p.send == nil {
		p.send = pc
	}
	p.notifyLocked()
	p.mu.Unlock()
	b.wg.Add(1)
	go b.readLoop(p, pc)
}

// readLoop delivers frames from one connection until it ends.
func (b *TCPBootstrap) readLoop(p *peer, pc *peerConn) {
	defer b.wg.Done()
	defer close(pc.done)
	br := bufio.NewReaderSize(pc.c, 64<<10)
	gotBye := false
	for {
		f, err := readFrame(br, maxFrameSize)
		if err != nil {
			b.connDown(p, pc, gotBye, err)
			return
		}
		switch {
		case (f.typ == frameData || f.typ == frameColl) && !gotBye:
			p.deliver(msgKey{f.typ, f.tag}, f.payload)
		case f.typ == frameBye && !gotBye:
			gotBye = true
			p.mu.Lock()
			pc.gotBye = true
			p.settleLocked()
			p.mu.Unlock()
			pc.closeWrite()
		default:
			err := fmt.Errorf("protocol error: unexpected %s frame", f.typ)
			if gotBye {
				err = fmt.Errorf("protocol error: %s frame after bye", f.typ)
			}
			b.connDown(p, pc, false, err)
			return
		}
	}
}

// connDown forgets a connection that ended. If it ended without bye (a
// crash or a protocol error), the peer is lost: its other connections, if
// any, get lostGrace to deliver what is in flight and are then closed, so
// that Recv from the peer fails promptly.
func (b *TCPBootstrap) connDown(p *peer, pc *peerConn, gotBye bool, cause error) {
	pc.c.Close()
	if b.ctx.Err() != nil {
		return // Close set p.err already
	}
	p.mu.Lock()
	for i, x := range p.conns {
		if x == pc {
			p.conns = append(p.conns[:i], p.conns[i+1:]...)
			break
		}
	}
	if p.send == pc {
		p.send = nil
	}
	first := false
	if !gotBye && p.lost == nil && p.err == nil {
		p.lost, first = cause, true
	}
	others := append([]*peerConn(nil), p.conns...)
	p.settleLocked()
	addr := p.addr
	p.mu.Unlock()
	if first {
		b.logf("rank %d: connection to rank %d (%s) failed: %v", b.rank, p.rank, addr, cause)
		if len(others) > 0 {
			time.AfterFunc(lostGrace, func() {
				for _, o := range others {
					o.c.Close()
				}
			})
		}
	}
}

// checkReady fails unless Initialize has succeeded and Close not begun.
func (b *TCPBootstrap) checkReady(op string) error {
	b.mu.Lock()
	st := b.state
	b.mu.Unlock()
	switch st {
	case stateReady:
		return nil
	case stateClosed:
		return b.errorf("%s: %w", op, ErrClosed)
	}
	return b.errorf("%s: not initialized", op)
}

// checkPeer validates a peer rank for Send/Recv.
func (b *TCPBootstrap) checkPeer(op string, peer int) error {
	if peer < 0 || peer >= b.nranks {
		return b.errorf("%s rank %d: no such rank (nranks is %d)", op, peer, b.nranks)
	}
	return b.checkReady(fmt.Sprintf("%s rank %d", op, peer))
}

// Send sends data to peer with tag. It returns once the message is handed
// to the kernel (it does not wait for the peer to Recv it). Messages to one
// peer with one tag arrive in order. Sending to oneself is allowed. data
// is not retained.
func (b *TCPBootstrap) Send(peer, tag int, data []byte) error {
	if err := b.checkPeer("send to", peer); err != nil {
		return err
	}
	if len(data) > MaxMessageSize {
		return b.errorf("send to rank %d tag %d: %d bytes exceeds MaxMessageSize (%d)", peer, tag, len(data), MaxMessageSize)
	}
	if err := b.send(peer, frameData, int64(tag), data); err != nil {
		return b.errorf("send to rank %d (%s) tag %d: %w", peer, b.peers[peer].addrString(), tag, err)
	}
	return nil
}

// Recv returns the next message from peer with tag, waiting up to the
// timeout. Messages with other tags are kept for later calls. It fails at
// once if the connection to peer has dropped.
func (b *TCPBootstrap) Recv(peer, tag int) ([]byte, error) {
	if err := b.checkPeer("recv from", peer); err != nil {
		return nil, err
	}
	data, err := b.recv(peer, msgKey{frameData, int64(tag)})
	if err != nil {
		return nil, b.errorf("recv from rank %d (%s) tag %d: %w", peer, b.peers[peer].addrString(), tag, err)
	}
	return data, nil
}

// send writes one frame to peer, connecting first if needed.
func (b *TCPBootstrap) send(peer int, typ frameType, tag int64, payload []byte) error {
	p := b.peers[peer]
	if peer == b.rank {
		p.deliver(msgKey{typ, tag}, append([]byte{}, payload...))
		return nil
	}
	pc, err := b.sendConn(p)
	if err != nil {
		return err
	}
	pc.wmu.Lock()
	defer pc.wmu.Unlock()
	if pc.shut {
		if b.ctx.Err() != nil {
			return ErrClosed
		}
		return ErrPeerClosed // it said bye on this connection
	}
	pc.c.SetWriteDeadline(time.Now().Add(b.timeout))
	stop := context.AfterFunc(b.ctx, func() { pc.c.SetWriteDeadline(time.Unix(1, 0)) })
	err = writeFrame(pc.c, typ, tag, payload)
	stop()
	if err != nil {
		// A partial frame would corrupt the stream: drop the connection.
		pc.c.Close()
		switch {
		case b.ctx.Err() != nil:
			return ErrClosed
		case errors.Is(err, os.ErrDeadlineExceeded):
			return fmt.Errorf("%w after %s (peer not reading?)", ErrTimeout, b.timeout)
		}
		return fmt.Errorf("%w: %v", ErrPeerLost, err)
	}
	return nil
}

// recv waits for the next message under key from peer.
func (b *TCPBootstrap) recv(peer int, key msgKey) ([]byte, error) {
	p := b.peers[peer]
	var timer *time.Timer
	for {
		p.mu.Lock()
		if q := p.inbox[key]; len(q) > 0 {
			data := q[0]
			q[0] = nil
			if len(q) == 1 {
				delete(p.inbox, key)
			} else {
				p.inbox[key] = q[1:]
			}
			p.mu.Unlock()
			if timer != nil {
				timer.Stop()
			}
			return data, nil
		}
		if err := p.err; err != nil {
			p.mu.Unlock()
			if timer != nil {
				timer.Stop()
			}
			return nil, err
		}
		wake := p.wake
		p.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(b.timeout)
		}
		select {
		case <-wake:
		case <-timer.C:
			return nil, fmt.Errorf("%w after %s", ErrTimeout, b.timeout)
		case <-b.ctx.Done():
			timer.Stop()
			return nil, ErrClosed
		}
	}
}

// sendConn returns the connection to send to p on, dialing it if there is
// none yet. Concurrent callers share one dial.
func (b *TCPBootstrap) sendConn(p *peer) (*peerConn, error) {
	for {
		if b.ctx.Err() != nil {
			return nil, ErrClosed
		}
		p.mu.Lock()
		if p.err != nil || p.lost != nil {
			err := p.err
			if err == nil {
				err = fmt.Errorf("%w: %v", ErrPeerLost, p.lost)
			}
			p.mu.Unlock()
			return nil, err
		}
		if pc := p.send; pc != nil {
			p.mu.Unlock()
			return pc, nil
		}
		if ch := p.dialing; ch != nil {
			p.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-b.ctx.Done():
				return nil, ErrClosed
			}
		}
		ch := make(chan struct{})
		p.dialing = ch
		addr := p.addr
		p.mu.Unlock()

		c, err := b.dialPeer(p.rank, addr)
		if err == nil {
			b.mu.Lock()
			if b.state == stateClosed {
				c.Close()
				err = ErrClosed
			} else {
				b.addConnLocked(p.rank, c, addr)
			}
			b.mu.Unlock()
		}
		p.mu.Lock()
		p.dialing = nil
		close(ch)
		p.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
}

// dialPeer connects to rank's listener and exchanges peer hellos.
func (b *TCPBootstrap) dialPeer(rank int, addr netip.AddrPort) (net.Conn, error) {
	if !addr.IsValid() {
		return nil, fmt.Errorf("address of rank %d is unknown", rank)
	}
	ctx, cancel := context.WithTimeout(b.ctx, b.timeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr.String())
	if err != nil {
		if b.ctx.Err() != nil {
			return nil, ErrClosed
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("connect: %w after %s", ErrTimeout, b.timeout)
		}
		return nil, fmt.Errorf("connect: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			c.Close()
		}
	}()
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	ioErr := func(what string, err error) error {
		switch {
		case b.ctx.Err() != nil:
			return ErrClosed
		case ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded):
			return fmt.Errorf("%s: %w after %s", what, ErrTimeout, b.timeout)
		}
		return fmt.Errorf("%s: %w", what, err)
	}

	b.mu.Lock()
	self := b.self
	b.mu.Unlock()
	h := hello{secret: b.secret, rank: b.rank, nranks: b.nranks, listen: self}
	if err := writeFrame(c, framePeerHello, 0, encodeHello(h)); err != nil {
		return nil, ioErr("sending peer hello", err)
	}
	f, err := readFrame(c, maxHandshakeFrame)
	if err != nil {
		return nil, ioErr("waiting for peer hello", err)
	}
	switch f.typ {
	case frameReject:
		reason, derr := decodeReject(f.payload)
		if derr != nil {
			reason = "(unreadable reason: " + derr.Error() + ")"
		}
		return nil, fmt.Errorf("refused by %s: %s", addr, reason)
	case framePeerHello:
	default:
		return nil, fmt.Errorf("protocol error: expected a peer hello, got a %s frame", f.typ)
	}
	r, err := decodeHello(f.payload)
	if err != nil {
		return nil, fmt.Errorf("bad peer hello: %w", err)
	}
	if subtle.ConstantTimeCompare(r.secret[:], b.secret[:]) != 1 || r.nranks != b.nranks || r.rank != rank {
		return nil, fmt.Errorf("%s is not rank %d of this job (it says rank %d of %d, secret match %v)",
			addr, rank, r.rank, r.nranks, subtle.ConstantTimeCompare(r.secret[:], b.secret[:]) == 1)
	}
	if !stop() {
		return nil, ioErr("handshake", ctx.Err())
	}
	ok = true
	return c, nil
}
