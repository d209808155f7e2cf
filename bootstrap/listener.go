package bootstrap

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"
)

// registration is a rank that said hello to the root during init.
type registration struct {
	conn   net.Conn
	listen netip.AddrPort // the rank's own listener
	remote string         // where the hello came from
}

// acceptLoop accepts connections on this rank's listener until Close.
func (b *TCPBootstrap) acceptLoop(ln net.Listener) {
	defer b.wg.Done()
	backoff := 5 * time.Millisecond
	for {
		c, err := ln.Accept()
		if err != nil {
			if b.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			// Transient (e.g. out of file descriptors): log and back off.
			b.logf("rank %d: accept on %s: %v", b.rank, ln.Addr(), err)
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-b.ctx.Done():
				t.Stop()
				return
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		b.wg.Add(1)
		go b.serveHandshake(c)
	}
}

// serveHandshake reads the first frame of an accepted connection and either
// registers it (hello, root only), adopts it as a peer connection
// (peer-hello), or refuses it.
func (b *TCPBootstrap) serveHandshake(c net.Conn) {
	defer b.wg.Done()
	remote := c.RemoteAddr().String()
	keep := false
	defer func() {
		if !keep {
			c.Close()
		}
	}()
	c.SetDeadline(time.Now().Add(b.timeout))
	stop := context.AfterFunc(b.ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	refuse := func(format string, args ...any) {
		if b.ctx.Err() == nil {
			b.logf("rank %d: refused connection from %s: %s", b.rank, remote, fmt.Sprintf(format, args...))
		}
	}
	f, err := readFrame(c, maxHandshakeFrame)
	if err != nil {
		if errors.Is(err, io.EOF) {
			refuse("closed before saying hello")
		} else {
			refuse("bad handshake: %v", err)
		}
		return
	}
	if f.typ != frameHello && f.typ != framePeerHello {
		refuse("expected a hello, got a %s frame", f.typ)
		return
	}
	h, err := decodeHello(f.payload)
	if err != nil {
		refuse("bad hello: %v", err)
		return
	}
	if subtle.ConstantTimeCompare(h.secret[:], b.secret[:]) != 1 {
		refuse("wrong secret (claims rank %d of %d; another job?)", h.rank, h.nranks)
		b.reject(c, "wrong secret: this address belongs to another bootstrap job")
		return
	}
	if h.nranks != b.nranks {
		refuse("rank %d says nranks is %d, this job has %d", h.rank, h.nranks, b.nranks)
		b.reject(c, fmt.Sprintf("nranks mismatch: you say %d, rank %d has %d", h.nranks, b.rank, b.nranks))
		return
	}
	if f.typ == frameHello {
		keep = b.register(c, h, remote)
		if keep {
			stop()
		}
		return
	}

	// Peer hello: answer with ours, then adopt the connection.
	if h.rank == b.rank {
		refuse("peer hello claims to be rank %d, which is this rank", h.rank)
		b.reject(c, fmt.Sprintf("rank %d is already taken by %s", b.rank, c.LocalAddr()))
		return
	}
	b.mu.Lock()
	self := b.self
	b.mu.Unlock()
	reply := hello{secret: b.secret, rank: b.rank, nranks: b.nranks, listen: self}
	if err := writeFrame(c, framePeerHello, 0, encodeHello(reply)); err != nil {
		refuse("answering peer hello of rank %d: %v", h.rank, err)
		return
	}
	if !stop() {
		return // closing
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == stateClosed {
		return
	}
	b.addConnLocked(h.rank, c, h.listen)
	keep = true
}

// register records a hello at the root. It reports whether it kept c.
func (b *TCPBootstrap) register(c net.Conn, h hello, remote string) bool {
	var reason string
	b.mu.Lock()
	switch {
	case b.state == stateClosed:
		b.mu.Unlock()
		return false
	case b.rank != 0:
		reason = fmt.Sprintf("rank %d is not the root", b.rank)
	case b.state == stateReady:
		reason = fmt.Sprintf("initialization already complete; late or duplicate rank %d", h.rank)
	case h.rank == 0:
		reason = "rank 0 is the root itself; two processes think they are rank 0"
	case b.reg[h.rank] != nil:
		reason = fmt.Sprintf("rank %d already connected from %s", h.rank, b.reg[h.rank].remote)
	default:
		b.reg[h.rank] = &registration{conn: c, listen: h.listen, remote: remote}
		close(b.regChanged)
		b.regChanged = make(chan struct{})
		b.mu.Unlock()
		c.SetDeadline(time.Time{})
		return true
	}
	b.mu.Unlock()
	b.logf("rank %d: refused connection from %s: %s", b.rank, remote, reason)
	b.reject(c, reason)
	return false
}

// reject tells the other end why it is refused. Best effort.
func (b *TCPBootstrap) reject(c net.Conn, reason string) {
	c.SetWriteDeadline(time.Now().Add(min(b.timeout, time.Second)))
	writeFrame(c, frameReject, 0, encodeReject(reason))
}

// rejectRegistered sends reason to every rank registered so far and drops
// their connections (init failed at the root).
func (b *TCPBootstrap) rejectRegistered(reason string) {
	b.mu.Lock()
	regs := b.reg
	b.reg = map[int]*registration{}
	b.mu.Unlock()
	for _, r := range regs {
		b.reject(r.conn, reason)
		r.conn.Close()
	}
}

// missingRanks lists the ranks the root has not heard from.
func (b *TCPBootstrap) missingRanks() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	var missing []int
	for r := 1; r < b.nranks; r++ {
		if b.reg[r] == nil {
			missing = append(missing, r)
		}
	}
	return missing
}
