package ethernet

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
)

// TestControlQueueKeepsOrderAndFlush: rank 0 pushes many small puts of host-resident
// memory, each with a signal, with no wait in between, so the control socket's queue fills
// and wraps; then a flush, after which it overwrites its source. Rank 1 must receive every
// put's bytes as they were before the flush (a put counts as staged only once written to
// the socket), every signal in order (the token reaches the last count), and nothing past
// the puts' ends. Then signals alone, and StopProxy must return only once they are all
// written. With a spin the control sender thread writes them; without one, the proxy.
func TestControlQueueKeepsOrderAndFlush(t *testing.T) {
	for _, spin := range []time.Duration{50 * time.Microsecond, 0} {
		t.Run(fmt.Sprintf("spin %v", spin), func(t *testing.T) { controlQueue(t, spin) })
	}
}

func controlQueue(t *testing.T, spin time.Duration) {
	channelstest.UseHostTokens(t, true)
	const puts, size, stride = 5 * ctlQueueSize, 1000, 1024
	bs := channelstest.NewBoots(t, 2)
	ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), puts*stride, true, func(r int) channels.MeshOptions {
		o := ethOpts(Mode, "node")
		setEth(&o, func(e *Options) { e.Spin = spin })
		return o
	})
	channelstest.OnRanks(t, 2, func(r int) error { return setUpHost(ranks[r], r) })
	send, recv := ranks[0], ranks[1]
	src, dst := send.G.Space.Bytes(send.Src, puts*stride), recv.G.Space.Bytes(recv.Dst, puts*stride)
	want := make([]byte, len(src))
	for i := range src {
		src[i] = channelstest.Pattern(0, 1, 0, size, uint64(i))
		if i%stride < size {
			want[i] = src[i]
		}
	}
	for k := uint64(0); k < puts; k++ {
		if err := send.Ports[1].PutWithSignal(k*stride, k*stride, size); err != nil {
			t.Fatal(err)
		}
	}
	if err := send.Ports[1].Flush(); err != nil {
		t.Fatal(err)
	}
	for i := range src {
		src[i] = 0xee // the source may change once the flush is done
	}
	// signals alone, then the closing step: nothing queued is left unsent
	const signals = 2 * ctlQueueSize
	for k := 0; k < signals; k++ {
		if _, err := send.Ports[1].Push(channels.TriggerFlag, 0, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := send.M.StopProxy(); err != nil {
		t.Fatal(err)
	}
	if q := send.M.Conns[1].(*ethConn).ctlSend; q != nil && q.cursor.Load() != q.head.Load() {
		t.Fatalf("StopProxy returned with %d control messages unsent", q.head.Load()-q.cursor.Load())
	}
	for k := 0; k < puts+signals; k++ {
		if err := recv.Ports[0].Wait(); err != nil {
			t.Fatalf("signal %d: %v", k+1, err)
		}
	}
	if !bytes.Equal(dst, want) {
		for i := range dst {
			if dst[i] != want[i] {
				t.Fatalf("destination byte %d (put %d) = %#x, want %#x", i, i/stride, dst[i], want[i])
			}
		}
	}
}

// TestControlSenderSleepsAfterBulk: after a message that followed pieces dealt to the data
// sockets the control sender sleeps at once, and wakes for the next message; after any
// other it polls for its spin time (here 10 s: it must still be awake 100 ms on).
func TestControlSenderSleepsAfterBulk(t *testing.T) {
	w, r := sockPair(t)
	c := &ethConn{peer: 1, timeout: 5 * time.Second, ctl: w, stop: make(chan struct{}),
		onError: func(err error) { t.Errorf("control sender: %v", err) }}
	s := &ctlSender{c: c, spin: 10 * time.Second}
	c.wg.Add(1)
	go s.run()
	defer func() {
		close(c.stop)
		s.bell.ring()
		c.wg.Wait()
	}()
	sent := func(n uint64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); s.cursor.Load() < n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("message %d not sent within 5 s", n)
			}
		}
		if err := r.readFull(make([]byte, 4)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.push([]ctlPart{{[]byte("mark"), true}}, false); err != nil {
		t.Fatal(err)
	}
	sent(1)
	time.Sleep(100 * time.Millisecond)
	if n := s.bell.sleepers.Load(); n != 0 {
		t.Fatal("the sender slept within its spin time after a small message")
	}
	if err := s.push([]ctlPart{{[]byte("bulk"), true}}, true); err != nil {
		t.Fatal(err)
	}
	sent(2)
	for deadline := time.Now().Add(5 * time.Second); s.bell.sleepers.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the sender still polled 5 s after a message that followed data-socket pieces")
		}
	}
	if err := s.push([]ctlPart{{[]byte("wake"), true}}, true); err != nil {
		t.Fatal(err)
	}
	sent(3) // and it sleeps again: the deferred stop ends it at once
}
