package ethernet

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ethSock is a data socket of the Ethernet transport, taken out of Go's network poller:
// its descriptor is in blocking mode and read and written with plain system calls by the
// connection's own threads. A thread blocked in read(2) wakes as soon as bytes arrive;
// through the poller, a goroutine waited for the poller's thread to notice and then for
// a Go scheduler slot (50–80 µs per message on loopback, measured on a busy 2-core
// machine with BenchmarkEthernetLoopback).
type ethSock struct {
	f    *os.File
	fd   int
	spin time.Duration // how long a read polls for bytes before it blocks
	rest atomic.Bool   // reads block at once, spin or not (set by the socket's reader)
}

// newEthSock takes c over (c is closed; the socket lives on in the returned file).
// Writes that make no progress for sendTimeout fail (SO_SNDTIMEO), so that a peer that
// stops reading is reported instead of blocking a thread for ever.
func newEthSock(c net.Conn, sendTimeout time.Duration) (*ethSock, error) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil, fmt.Errorf("not a TCP connection: %T", c)
	}
	f, err := tc.File()
	c.Close()
	if err != nil {
		return nil, err
	}
	s := &ethSock{f: f, fd: int(f.Fd())} // Fd puts the descriptor in blocking mode
	tv := unix.NsecToTimeval(sendTimeout.Nanoseconds())
	if err := unix.SetsockoptTimeval(s.fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv); err != nil {
		f.Close()
		return nil, fmt.Errorf("SO_SNDTIMEO: %w", err)
	}
	return s, nil
}

// errSendStalled is a write that made no progress for the send timeout.
var errSendStalled = errors.New("the peer read nothing within the timeout")

// writev writes every byte of bufs (one system call when the socket takes them all).
func (s *ethSock) writev(bufs ...[]byte) error {
	for len(bufs) > 0 {
		n, err := unix.Writev(s.fd, bufs)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			return errSendStalled
		}
		if err != nil {
			return err
		}
		for n > 0 && len(bufs) > 0 {
			if n < len(bufs[0]) {
				bufs[0] = bufs[0][n:]
				n = 0
				break
			}
			n -= len(bufs[0])
			bufs = bufs[1:]
		}
		for len(bufs) > 0 && len(bufs[0]) == 0 {
			bufs = bufs[1:]
		}
	}
	return nil
}

// readFull fills b; io.EOF when the peer closed before its first byte,
// io.ErrUnexpectedEOF after.
func (s *ethSock) readFull(b []byte) error {
	got := 0
	for got < len(b) {
		n, err := s.read(b[got:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			if got == 0 {
				return io.EOF
			}
			return io.ErrUnexpectedEOF
		}
		got += n
	}
	return nil
}

// readable says whether a read would find bytes (or the end) at once.
func (s *ethSock) readable() bool {
	fds := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 0)
		if err == unix.EINTR {
			continue
		}
		return err != nil || n > 0
	}
}

// read is read(2) on the socket, but with a spin (and rest unset) it first tries
// non-blocking receives for up to that long, so that a thread expecting a message soon
// takes it without sleeping and being woken (one system call a try, where poll(2) and then
// read(2) took two).
func (s *ethSock) read(b []byte) (int, error) {
	if s.spin > 0 && !s.rest.Load() {
		start := time.Now()
		for i := 0; ; i++ {
			// recvfrom(2) with no address: unix.Recvfrom would allocate one per call.
			r, _, errno := unix.Syscall6(unix.SYS_RECVFROM, uintptr(s.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), unix.MSG_DONTWAIT, 0, 0)
			if errno != unix.EAGAIN {
				if errno != 0 {
					return 0, errno
				}
				return int(r), nil
			}
			if i&15 == 15 && time.Since(start) > s.spin {
				break
			}
		}
	}
	return unix.Read(s.fd, b)
}

// shutdown ends both directions: threads blocked on the socket return at once.
func (s *ethSock) shutdown() { unix.Shutdown(s.fd, unix.SHUT_RDWR) }

// close releases the descriptor; no thread may use the socket any more.
func (s *ethSock) close() error { return s.f.Close() }

// ethReader reads a socket through a buffer, so that a small message and the header
// after it take one system call (the control socket's marks and small writes).
type ethReader struct {
	sock *ethSock
	buf  []byte
	r, w int
}

// readFull fills b, from the buffer first; what the buffer cannot hold is read directly.
func (e *ethReader) readFull(b []byte) error {
	n := copy(b, e.buf[e.r:e.w])
	e.r += n
	b = b[n:]
	if len(b) == 0 {
		return nil
	}
	if len(b) >= len(e.buf) {
		err := e.sock.readFull(b)
		if err == io.EOF && n > 0 {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	e.r, e.w = 0, 0
	for e.w < len(b) {
		m, err := e.sock.read(e.buf[e.w:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if m == 0 {
			if n == 0 && e.w == 0 {
				return io.EOF
			}
			return io.ErrUnexpectedEOF
		}
		e.w += m
	}
	e.r = copy(b, e.buf[:e.w])
	return nil
}

// readable says whether a read would find bytes (or the end) at once.
func (e *ethReader) readable() bool { return e.r < e.w || e.sock.readable() }
