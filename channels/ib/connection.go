package ib

import (
	"encoding/binary"
	"fmt"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/rdma"
)

// ibConn connects two ranks over InfiniBand: one reliable-connected queue pair. A write is
// an RDMA write from local registered memory into the peer's (split into pieces of at
// most ibMaxWrite); a signal is an RDMA fetch-and-add of 1 on the peer's token when both
// HCAs do atomics, else an RDMA write of the token's new value; both follow the writes on
// the same queue pair, which delivers in order. A flush polls the completion queue until
// every work request has completed. Not yet run on hardware: the protocol is tested
// against an in-memory stand-in of the verbs (channelstest.IBFabric).
type ibConn struct {
	peer        int
	qp          rdma.QueuePair
	timeout     time.Duration
	atomics     bool
	vals        []byte // ibDepth 8-byte slots: values of signals, results of atomics
	valMR       rdma.MemoryRegion
	wr          uint64 // work requests posted
	outstanding int
	comps       []rdma.Completion
}

// Transport implements Connection.
func (c *ibConn) Transport() channels.Transport { return Transport }

// Handle implements Connection.
func (c *ibConn) Handle(ch *channels.ProxyChannel, t channels.Trigger) error {
	return channels.RunSteps(c, ch, t)
}

// Write posts the trigger's bytes as RDMA writes of at most ibMaxWrite.
func (c *ibConn) Write(ch *channels.ProxyChannel, t channels.Trigger) error {
	src, dst, srcOff, dstOff, size := &ch.Src, &ch.Dst, t.SrcOffset(), t.DstOffset(), t.Size()
	for done := uint64(0); done < size; {
		n := min(size-done, ibMaxWrite)
		if err := c.room(); err != nil {
			return err
		}
		err := c.qp.PostWrite(c.wr, uint64(src.Ptr())+srcOff+done, src.Key, n, uint64(dst.Ptr())+dstOff+done, dst.Key)
		if err != nil {
			return fmt.Errorf("post RDMA write of %d bytes: %w", n, err)
		}
		c.posted()
		done += n
	}
	return nil
}

// Signal sets the peer's token to the channel's signal count (atomics: adds 1, which is
// the same: the proxy counts one per signal).
func (c *ibConn) Signal(ch *channels.ProxyChannel) error {
	tok, v := &ch.Token, ch.Outbound()
	if err := c.room(); err != nil {
		return err
	}
	slot := c.vals[(c.wr%ibDepth)*8:][:8]
	laddr := uint64(uintptr(unsafe.Pointer(&slot[0])))
	var err error
	if c.atomics {
		err = c.qp.PostFetchAdd(c.wr, laddr, c.valMR.LKey(), uint64(tok.Ptr()), tok.Key, 1)
	} else {
		binary.LittleEndian.PutUint64(slot, v)
		err = c.qp.PostWrite(c.wr, laddr, c.valMR.LKey(), 8, uint64(tok.Ptr()), tok.Key)
	}
	if err != nil {
		return fmt.Errorf("post token update: %w", err)
	}
	c.posted()
	return nil
}

func (c *ibConn) posted() {
	c.wr++
	c.outstanding++
}

// room waits until the send queue can take one more work request. Completions come in
// order, so the signal slot of the request posted ibDepth ago is free again too.
func (c *ibConn) room() error {
	if c.outstanding < ibDepth {
		return nil
	}
	return c.drain(ibDepth - 1)
}

func (c *ibConn) Flush() error { return c.drain(0) }

// Drain implements channels.Drainer: it waits until every work request posted so far has
// completed (a signal's write has reached the peer). The proxy has stopped, so this
// thread may poll the completion queue.
func (c *ibConn) Drain() error { return c.drain(0) }

// drain polls the completion queue until at most left work requests are outstanding.
func (c *ibConn) drain(left int) error {
	start := time.Now()
	for i := 0; c.outstanding > left; i++ {
		n, err := c.qp.Poll(c.comps)
		if err != nil {
			return fmt.Errorf("poll completions: %w", err)
		}
		for _, wc := range c.comps[:n] {
			c.outstanding--
			if wc.Status != 0 {
				return fmt.Errorf("work request %d to rank %d failed: %s (status %d)", wc.ID, c.peer, wc.Err, wc.Status)
			}
		}
		if n == 0 && i&1023 == 1023 && time.Since(start) > c.timeout {
			return fmt.Errorf("%d work requests to rank %d not completed within %v", c.outstanding, c.peer, c.timeout)
		}
	}
	return nil
}

// Close implements Connection.
func (c *ibConn) Close() error {
	var first error
	if c.valMR != nil {
		first = c.valMR.Close()
	}
	if err := c.qp.Close(); err != nil && first == nil {
		first = err
	}
	return first
}
