package ethernet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// sockPair returns the two ends of a loopback TCP connection as ethSocks.
func sockPair(t testing.TB) (a, b *ethSock) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	dialed, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	other := <-accepted
	if other == nil {
		t.Fatal("accept failed")
	}
	if a, err = newEthSock(dialed, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if b, err = newEthSock(other, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.close(); b.close() })
	return a, b
}

// TestEthReaderReadFull: messages written in one piece or many are read back intact
// through the buffer, whether they fit it or not, and the end of the stream is io.EOF
// between messages and io.ErrUnexpectedEOF inside one; with the reader sleeping in read(2)
// at once and with it polling first (Options.Spin).
func TestEthReaderReadFull(t *testing.T) {
	for _, spin := range []time.Duration{0, 100 * time.Microsecond} {
		t.Run(fmt.Sprintf("spin=%v", spin), func(t *testing.T) { testEthReaderReadFull(t, spin) })
	}
}

func testEthReaderReadFull(t *testing.T, spin time.Duration) {
	for _, tc := range []struct {
		name   string
		sizes  []int // messages the reader asks for, in order
		cut    int   // the writer sends in writes of this many bytes
		short  int   // the writer stops this many bytes before the end
		endErr error // what the read after the last full message returns
	}{
		{"small messages", []int{32, 8, 32, 100}, 1 << 20, 0, io.EOF},
		{"byte by byte", []int{32, 5, 32}, 1, 0, io.EOF},
		{"larger than the buffer", []int{32, 3 << 20, 32, 5000}, 7777, 0, io.EOF},
		{"cut inside a message", []int{32, 9000}, 1000, 10, io.ErrUnexpectedEOF},
		{"cut inside a large message", []int{32, 1 << 20}, 1 << 16, 1, io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, r := sockPair(t)
			r.spin = spin
			var stream []byte
			for i, n := range tc.sizes {
				for j := 0; j < n; j++ {
					stream = append(stream, byte(i*31+j*7))
				}
			}
			sent := stream[:len(stream)-tc.short]
			go func() {
				for at := 0; at < len(sent); at += tc.cut {
					if w.writev(sent[at:min(at+tc.cut, len(sent))]) != nil {
						break
					}
				}
				w.shutdown()
			}()
			rd := &ethReader{sock: r, buf: make([]byte, 4096)}
			at := 0
			for i, n := range tc.sizes {
				got := make([]byte, n)
				err := rd.readFull(got)
				if at+n > len(sent) {
					if !errors.Is(err, tc.endErr) {
						t.Fatalf("message %d: %v, want %v", i, err, tc.endErr)
					}
					return
				}
				if err != nil || !bytes.Equal(got, stream[at:at+n]) {
					t.Fatalf("message %d (%d bytes): %v, or the bytes differ", i, n, err)
				}
				at += n
			}
			if err := rd.readFull(make([]byte, 1)); !errors.Is(err, tc.endErr) {
				t.Fatalf("after the last message: %v, want %v", err, tc.endErr)
			}
		})
	}
}

// TestEthSockWritevKeepsOrder: a writev of several buffers larger than the socket's
// buffers (so written in several system calls) arrives whole and in order.
func TestEthSockWritevKeepsOrder(t *testing.T) {
	w, r := sockPair(t)
	bufs := [][]byte{make([]byte, 32), make([]byte, 5<<20+3), make([]byte, 1), make([]byte, 2<<20)}
	var want []byte
	for i, b := range bufs {
		for j := range b {
			b[j] = byte(i + j*13)
		}
		want = append(want, b...)
	}
	errc := make(chan error, 1)
	go func() { errc <- w.writev(bufs...) }()
	got := make([]byte, len(want))
	if err := r.readFull(got); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("bytes differ")
	}
}

// TestEthSockSendTimeout: a write that the peer never reads fails after the send timeout
// with errSendStalled instead of blocking for ever.
func TestEthSockSendTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	release := make(chan struct{})
	defer close(release)
	go func() {
		if c, err := ln.Accept(); err == nil {
			<-release // never reads, and keeps the connection open however slow the test
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := newEthSock(c, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	start := time.Now()
	err = s.writev(make([]byte, 64<<20))
	if !errors.Is(err, errSendStalled) {
		t.Fatalf("write to a peer that never reads: %v, want %v", err, errSendStalled)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the write failed only after %v", took)
	}
}

// TestDoorbell: a sleeper wakes when rung, and on its own after the longest wait.
func TestDoorbell(t *testing.T) {
	var d doorbell
	var flag atomic.Bool
	woke := make(chan struct{})
	go func() {
		for !flag.Load() {
			d.wait(flag.Load, 20*time.Second)
		}
		close(woke)
	}()
	for d.sleepers.Load() == 0 { // asleep, or about to be
		time.Sleep(time.Millisecond)
	}
	flag.Store(true)
	d.ring()
	select {
	case <-woke:
	case <-time.After(10 * time.Second):
		t.Fatal("the sleeper did not wake when rung")
	}
	// An unrung wait lasts its whole time, even while signals interrupt the sleep (the Go
	// runtime's preemption signal, SIGURG, sent to the sleeping thread every millisecond).
	tid := make(chan int)
	took := make(chan time.Duration)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid <- unix.Gettid()
		start := time.Now()
		d.wait(func() bool { return false }, 30*time.Millisecond)
		took <- time.Since(start)
	}()
	id := <-tid
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	signals := 0
	for {
		select {
		case <-tick.C:
			if err := unix.Tgkill(unix.Getpid(), id, unix.SIGURG); err != nil {
				t.Fatal(err)
			}
			signals++
			continue
		case d := <-took:
			if d < 30*time.Millisecond || d > 5*time.Second {
				t.Fatalf("an unrung wait of 30ms took %v (%d signals sent to its thread)", d, signals)
			}
		}
		break
	}
}

// TestEthSockSpinReadAllocatesNothing: a spinning read allocates nothing per try (the
// timed loops run with the garbage collector off, and the control receiver spins through
// them).
func TestEthSockSpinReadAllocatesNothing(t *testing.T) {
	w, r := sockPair(t)
	r.spin = 20 * time.Microsecond
	buf, one := make([]byte, 1), []byte{7}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := unix.Write(w.fd, one); err != nil {
			t.Fatal(err)
		}
		if n, err := r.read(buf); n != 1 || err != nil {
			t.Fatalf("read = %d, %v", n, err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per spinning read", allocs)
	}
}
