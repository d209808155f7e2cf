package bootstrap

import (
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestDialPeerChecksAnswer: the dialing rank accepts a connection only when the answering
// peer proves it is the rank it dialed, of this job: the same secret, the rank asked for
// and the same number of ranks. Anything else (another job's rank on a reused port, a
// rank that moved) is refused and the connection closed.
func TestDialPeerChecksAnswer(t *testing.T) {
	checkNoLeaks(t)
	jobSecret, otherSecret := deriveSecret("job A"), deriveSecret("job B")
	tests := []struct {
		name   string
		answer hello
		want   string // "" means the connection is accepted
	}{
		{"the right peer", hello{secret: jobSecret, rank: 1, nranks: 3}, ""},
		{"another job's secret", hello{secret: otherSecret, rank: 1, nranks: 3}, "is not rank 1 of this job (it says rank 1 of 3, secret match false)"},
		{"the wrong rank", hello{secret: jobSecret, rank: 2, nranks: 3}, "is not rank 1 of this job (it says rank 2 of 3, secret match true)"},
		{"this rank itself", hello{secret: jobSecret, rank: 0, nranks: 3}, "it says rank 0 of 3"},
		{"another rank count", hello{secret: jobSecret, rank: 1, nranks: 4}, "it says rank 1 of 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := New(0, 3, Options{Timeout: 5 * time.Second, Logf: t.Logf})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			b.mu.Lock()
			b.secret, b.self = jobSecret, netip.MustParseAddrPort("127.0.0.1:1")
			b.mu.Unlock()

			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			// The fake peer reads the dialer's hello, answers, then, once dialPeer has
			// returned, reports whether the dialer kept the connection open (a read that
			// times out) or closed it (EOF at once).
			kept := make(chan bool, 1)
			returned := make(chan struct{})
			got := make(chan hello, 1)
			answer := tt.answer
			answer.listen = tcpAddrPort(ln.Addr())
			go func() {
				c, err := ln.Accept()
				if err != nil {
					kept <- false
					return
				}
				defer c.Close()
				f, err := readFrame(c, maxHandshakeFrame)
				if err == nil && f.typ == framePeerHello {
					if h, err := decodeHello(f.payload); err == nil {
						got <- h
					}
				}
				writeFrame(c, framePeerHello, 0, encodeHello(answer))
				<-returned
				c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
				_, err = c.Read(make([]byte, 1))
				kept <- err != io.EOF
			}()
			addr := tcpAddrPort(ln.Addr())
			c, err := b.dialPeer(1, addr)
			close(returned)
			if c != nil {
				defer c.Close()
			}
			select {
			case h := <-got:
				if h.secret != jobSecret || h.rank != 0 || h.nranks != 3 {
					t.Errorf("the dialer introduced itself as %+v", h)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the fake peer got no hello")
			}
			stillOpen := <-kept
			if tt.want == "" {
				if err != nil || c == nil || !stillOpen {
					t.Fatalf("the right peer was refused: %v (connection open: %v)", err, stillOpen)
				}
				return
			}
			if err == nil || c != nil {
				t.Fatalf("accepted a peer answering %+v", tt.answer)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), addr.String()) {
				t.Errorf("error %q does not name the address and %q", err, tt.want)
			}
			if stillOpen {
				t.Error("the refused connection was left open")
			}
		})
	}
}
