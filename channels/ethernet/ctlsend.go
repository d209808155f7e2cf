package ethernet

// The control socket's sender (connection.go), where the connection spins (Options.Spin):
// the proxy queues each trigger's control messages (marks, and writes of host-resident
// memory up to Options.Inline) and goes on to its next trigger, so that the sends to different peers run side by side, each on its
// connection's thread, rather than one after another on the proxy's. A small send on a
// loopback TCP socket took 7-10 us of the proxy's time (4xH100, docs/performance.md).

import (
	"fmt"
	"sync/atomic"
	"time"
)

// ctlQueueSize is how many triggers' control messages the proxy may queue ahead of the
// control sender.
const ctlQueueSize = 64

// ctlMsg is one trigger's control messages: owned bytes (headers and marks, copied) and
// host-resident data (sent from where it lies), in the order they go out.
type ctlMsg struct {
	own    []byte
	iov    [][]byte
	staged uint64 // host-resident bytes: staged once written
	bulk   bool   // it follows pieces dealt to the data sockets: the sender sleeps after it
}

// ctlPart is a piece of a trigger's control messages as the proxy builds them: copied
// into the queue, or sent from where it lies (host-resident memory, which stays put until
// the peer has received it).
type ctlPart struct {
	b    []byte
	copy bool
}

// ctlSender is the thread that writes the control socket.
type ctlSender struct {
	c      *ethConn
	queue  [ctlQueueSize]ctlMsg
	head   atomic.Uint64 // written by the proxy
	cursor atomic.Uint64 // written by the sender, after the message went out
	bell   doorbell
	spin   time.Duration // how long an idle sender polls before it sleeps
}

// push queues parts as one message (the proxy's thread, under produce); it waits while
// the queue is full. bulk says that pieces went to the data sockets since the previous
// control messages: the sender sleeps after this one rather than poll (Options.Spin).
func (s *ctlSender) push(parts []ctlPart, bulk bool) error {
	c := s.c
	h := s.head.Load()
	if h-s.cursor.Load() >= ctlQueueSize {
		err := c.await(func() bool { return h-s.cursor.Load() < ctlQueueSize },
			func() string {
				return fmt.Sprintf("the control socket's sender has %d messages queued", h-s.cursor.Load())
			})
		if err != nil {
			return err
		}
	}
	m := &s.queue[h%ctlQueueSize]
	m.own, m.iov, m.staged, m.bulk = m.own[:0], m.iov[:0], 0, bulk
	for _, p := range parts {
		if p.copy {
			m.own = append(m.own, p.b...)
		}
	}
	at := 0
	for _, p := range parts {
		if p.copy {
			m.iov = append(m.iov, m.own[at:at+len(p.b)])
			at += len(p.b)
		} else {
			m.iov = append(m.iov, p.b)
			m.staged += uint64(len(p.b))
		}
	}
	s.head.Store(h + 1)
	s.bell.ring()
	return nil
}

// drain waits until every queued message has gone out (the proxy's thread).
func (s *ctlSender) drain() error {
	h := s.head.Load()
	return s.c.await(func() bool { return s.cursor.Load() == h },
		func() string { return fmt.Sprintf("%d control messages not sent", h-s.cursor.Load()) })
}

func (s *ctlSender) run() {
	defer s.c.wg.Done()
	if err := s.loop(); err != nil {
		s.c.fail(fmt.Errorf("ethernet to rank %d: control socket: %w", s.c.peer, err))
	}
}

// loop writes the queued messages in order. Once idle it polls the queue for the spin
// time before it sleeps, unless the last message followed pieces dealt to the data
// sockets (see Options.Spin).
func (s *ctlSender) loop() error {
	c := s.c
	bulk := false
	for {
		idx := s.cursor.Load()
		if idx == s.head.Load() {
			if c.Err() != nil || c.stopped() {
				return nil
			}
			if bulk || !s.poll(idx) {
				s.bell.wait(func() bool { return s.head.Load() != idx || c.Err() != nil || c.stopped() }, 20*time.Millisecond)
			}
			continue
		}
		m := &s.queue[idx%ctlQueueSize]
		if err := c.ctl.writev(m.iov...); err != nil {
			return err
		}
		c.staged.Add(m.staged)
		bulk = m.bulk
		clear(m.iov) // drop the references to host memory
		s.cursor.Store(idx + 1)
	}
}

// poll watches the queue for up to the spin time and says whether a message came.
func (s *ctlSender) poll(idx uint64) bool {
	if s.spin <= 0 {
		return false
	}
	start := time.Now()
	for i := 0; ; i++ {
		if s.head.Load() != idx {
			return true
		}
		if i&255 == 255 && time.Since(start) > s.spin {
			return false
		}
	}
}
