package channels

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// CopyEngine is what the proxy needs from a GPU: queue copies and 64-bit writes on a
// stream, and wait for a stream.
type CopyEngine interface {
	Bind() error
	CopyAsync(dst, src device.Ptr, bytes uint64, s device.Stream) error
	WriteValue64Async(dst device.Ptr, v uint64, s device.Stream) error
	Synchronize(s device.Stream, timeout time.Duration) error
	StreamIdle(s device.Stream) (bool, error)
}

// ProxyChannel is the proxy's state for one port channel: the connection to its peer,
// its source and destination buffers, and the peer's token it signals.
type ProxyChannel struct {
	Peer     int
	Conn     Connection
	Src      Region // local buffer the channel copies from
	Dst      Region // the peer's buffer it copies to
	Token    Region // the peer's inbound token of this channel (8 bytes)
	outbound uint64
}

// Outbound returns how many signals the channel has sent: the value a signal sets the
// peer's token to.
func (c *ProxyChannel) Outbound() uint64 { return c.outbound }

// ProxyService consumes the FIFO on a goroutine locked to an OS thread and hands each
// trigger to its channel's Connection: DATA → a write into the peer's buffer, FLAG → a
// signal of the peer's token once the write has landed, SYNC → wait until the writes have
// read their source before the trigger is released, which is what the GPU's flush waits
// for.
type ProxyService struct {
	ce       CopyEngine
	fifo     *Fifo
	timeout  time.Duration
	channels atomic.Pointer[[]*ProxyChannel] // copy-on-write: AddChannel may run while the loop reads
	addMu    sync.Mutex

	stop    atomic.Bool
	done    chan struct{}
	started bool

	mu      sync.Mutex
	err     error
	handled atomic.Uint64

	// OnError, if set, is called (on the proxy goroutine) with the first error, as soon as
	// it happens.
	OnError func(err error, t Trigger)
	// Placement, set before Start, pins the proxy thread to its CPUs; when Shared, the
	// thread yields its CPU while the FIFO is empty.
	Placement affinity.Placement
	// Trace, if set, is called for every trigger after it was handled (debugging).
	Trace func(t Trigger, took time.Duration, err error)
}

// NewProxyService makes a proxy for fifo; timeout bounds each flush.
func NewProxyService(ce CopyEngine, fifo *Fifo, timeout time.Duration) *ProxyService {
	return &ProxyService{ce: ce, fifo: fifo, timeout: timeout, done: make(chan struct{})}
}

// AddChannel registers a port channel and returns its id (carried in triggers). It may be
// called while the proxy runs, as long as no trigger names the channel before it returns.
func (p *ProxyService) AddChannel(c *ProxyChannel) (uint32, error) {
	p.addMu.Lock()
	defer p.addMu.Unlock()
	var old []*ProxyChannel
	if cur := p.channels.Load(); cur != nil {
		old = *cur
	}
	if len(old) >= 1<<16 {
		return 0, fmt.Errorf("proxy: more than %d port channels", 1<<16)
	}
	next := append(append(make([]*ProxyChannel, 0, len(old)+1), old...), c)
	p.channels.Store(&next)
	return uint32(len(next) - 1), nil
}

// Start runs the proxy loop.
func (p *ProxyService) Start() {
	p.started = true
	go p.run()
}

// Stop ends the loop once the FIFO is empty (every trigger pushed before it was called has
// been handled) and returns the first error the proxy met, if any.
func (p *ProxyService) Stop() error {
	if !p.started {
		return p.Err()
	}
	p.stop.Store(true)
	<-p.done
	p.started = false
	return p.Err()
}

// Err returns the first error the proxy met.
func (p *ProxyService) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Channels returns the channels added so far, indexed by id (the service's own list:
// the caller must not change it).
func (p *ProxyService) Channels() []*ProxyChannel {
	if cur := p.channels.Load(); cur != nil {
		return *cur
	}
	return nil
}

// Handled returns how many triggers the proxy has consumed.
func (p *ProxyService) Handled() uint64 { return p.handled.Load() }

func (p *ProxyService) fail(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.mu.Unlock()
}

func (p *ProxyService) run() {
	defer close(p.done)
	// The thread stays locked: when run returns, Go ends it rather than hand a thread
	// pinned to the proxy's CPUs to other goroutines.
	runtime.LockOSThread()
	if len(p.Placement.CPUs) > 0 {
		if err := affinity.Pin(p.Placement.CPUs); err != nil {
			p.fail(fmt.Errorf("proxy: %w", err))
			return
		}
	}
	if err := p.ce.Bind(); err != nil {
		p.fail(fmt.Errorf("proxy: %w", err))
		return
	}
	// A proxy that shares its rank's only CPU gives it up every 64 polls of an empty FIFO,
	// so the rank's thread (launching kernels, waiting on streams) is not starved.
	shared := p.Placement.Shared
	idle := 0
	for {
		t, ok := p.fifo.Poll()
		if !ok {
			idle++
			if shared && idle&63 == 0 {
				affinity.Yield()
			}
			if idle&255 == 0 {
				if p.stop.Load() {
					return
				}
				if idle&(1<<16-1) == 0 {
					affinity.Yield()
				}
			}
			continue
		}
		idle = 0
		var start time.Time
		if p.Trace != nil {
			start = time.Now()
		}
		err := p.Handle(t)
		if p.Trace != nil {
			p.Trace(t, time.Since(start), err)
		}
		if err != nil {
			if p.Err() == nil && p.OnError != nil {
				p.OnError(err, t)
			}
			p.fail(err)
		}
		p.fifo.Pop()
		p.handled.Add(1)
	}
}

// Handle carries out one trigger (exported for tests): it checks the trigger against its
// channel and hands it to the channel's connection.
func (p *ProxyService) Handle(t Trigger) error {
	id := t.Channel()
	var chans []*ProxyChannel
	if cur := p.channels.Load(); cur != nil {
		chans = *cur
	}
	if int(id) >= len(chans) {
		return fmt.Errorf("proxy: %v names port channel %d, but only %d exist", t, id, len(chans))
	}
	c := chans[id]
	typ := t.Type()
	if typ&TriggerData != 0 && t.Size() > 0 {
		if t.SrcOffset()+t.Size() > c.Src.Size || t.DstOffset()+t.Size() > c.Dst.Size {
			return fmt.Errorf("proxy: %v to rank %d overruns the buffers (source %d bytes, destination %d bytes)", t, c.Peer, c.Src.Size, c.Dst.Size)
		}
	}
	if typ&TriggerFlag != 0 {
		c.outbound++
	}
	if err := c.Conn.Handle(c, t); err != nil {
		return fmt.Errorf("proxy: port channel %d to rank %d: %w", id, c.Peer, err)
	}
	return nil
}
