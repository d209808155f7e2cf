// Package stubtransport is a transport for tests only, and the proof that a transport is
// one folder plus one registration line: it names nothing of the core but its exported
// seams, and a test links it with one blank import. It carries port-channel work between
// ranks of one process whose stand-in GPUs share memory (channelstest.MemSpace): a write
// is a copy from the source GPU into the destination GPU, a signal an atomic store into
// the peer's token. Its endpoint section names the rank's mesh in a table of this
// process, and, when asked, it registers memory like an HCA (a section with the memory's
// address and a key), so that tests see every seam of the registration record at work.
package stubtransport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Transport is the stub's bit.
const Transport channels.Transport = 1 << 15

// Mode connects every pair over the stub (--transport stub).
const Mode = channels.Mode(Transport)

// ErrUnavailable is wrapped by NewMesh's error when Mode was asked for and the rank's
// options say it has no stub.
var ErrUnavailable = errors.New("no stub here")

func init() {
	channels.RegisterTransport(channels.TransportInfo{
		Transport: Transport, Name: "stub", Title: "the stub", Flag: "stub",
		Priority:    150, // above Ethernet, below InfiniBand and CUDA IPC
		Offer:       channels.OfferAlways,
		Lacking:     "has no stub",
		Unavailable: ErrUnavailable,
		Open:        open,
	})
}

// Options configure the stub on one rank.
type Options struct {
	// Missing makes Open fail: the rank does not offer the stub.
	Missing bool
	// Registers makes the stub register memory (channels.MemoryRegistrar), like an HCA.
	Registers bool
	// Record, when set, hears what the stub does, as "rank R: event".
	Record func(event string)
}

// meshes is the table the endpoint sections point into.
var (
	meshesMu sync.Mutex
	meshes   = map[uint64]*channels.Mesh{}
	nextKey  uint64
)

// network is the stub as one rank opened it.
type network struct {
	m    *channels.Mesh
	key  uint64
	opts Options
}

// registrar is a network that registers memory.
type registrar struct{ *network }

func (n *network) record(format string, args ...any) {
	if n.opts.Record != nil {
		n.opts.Record(fmt.Sprintf("rank %d: ", n.m.Rank) + fmt.Sprintf(format, args...))
	}
}

// open is the stub's OpenFunc.
func open(m *channels.Mesh, me *channels.Endpoint) (channels.Network, error) {
	opts, _ := m.Opts.TransportOptions(Transport).(Options)
	if opts.Missing {
		return nil, errors.New("the options say no stub")
	}
	meshesMu.Lock()
	nextKey++
	n := &network{m: m, key: nextKey, opts: opts}
	meshes[n.key] = m
	meshesMu.Unlock()
	n.record("open")
	if opts.Registers {
		return registrar{n}, nil
	}
	return n, nil
}

// EndpointSection implements channels.EndpointFiller: the key of this rank's mesh.
func (n *network) EndpointSection() []byte { return binary.LittleEndian.AppendUint64(nil, n.key) }

// Connect implements channels.Network: every peer's mesh, looked up by its section.
func (n *network) Connect(peers []int) (map[int]channels.Connection, error) {
	n.record("connect %v after %d connections", peers, len(n.m.Conns))
	conns := map[int]channels.Connection{}
	for _, p := range peers {
		b := n.m.Endpoints[p].Section(Transport)
		if len(b) != 8 {
			return conns, fmt.Errorf("stub: endpoint of rank %d has a section of %d bytes, want 8", p, len(b))
		}
		meshesMu.Lock()
		peer := meshes[binary.LittleEndian.Uint64(b)]
		meshesMu.Unlock()
		if peer == nil {
			return conns, fmt.Errorf("stub: rank %d's mesh is not in this process", p)
		}
		conns[p] = &conn{n: n, peer: peer, rank: p}
	}
	return conns, nil
}

// Close implements channels.Network.
func (n *network) Close() error {
	meshesMu.Lock()
	delete(meshes, n.key)
	meshesMu.Unlock()
	n.record("close network")
	return nil
}

// regKey is the key every stub registration has, which a connection checks.
const regKey = 0x5717b

// RegisterMemory implements channels.MemoryRegistrar.
func (r registrar) RegisterMemory(mem channels.LocalMemory) (channels.Registration, error) {
	if mem.Host != nil {
		return nil, errors.New("stub: host-resident memory is not carried")
	}
	r.record("register %d bytes", mem.Size)
	return registration{n: r.network, ptr: mem.Ptr}, nil
}

// RemoteRegion implements channels.MemoryRegistrar.
func (r registrar) RemoteRegion(section []byte, _ uint64) (channels.Region, error) {
	if len(section) != 12 {
		return channels.Region{}, fmt.Errorf("stub: a section of %d bytes, want 12", len(section))
	}
	return channels.Region{Base: device.Ptr(binary.LittleEndian.Uint64(section)), Key: binary.LittleEndian.Uint32(section[8:])}, nil
}

// registration is memory the stub registered.
type registration struct {
	n   *network
	ptr device.Ptr
}

// Section implements channels.Registration.
func (g registration) Section() []byte {
	return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint64(nil, uint64(g.ptr)), regKey)
}

// Key implements channels.Registration.
func (g registration) Key() uint32 { return regKey }

// Close implements channels.Registration.
func (g registration) Close() error {
	g.n.record("unregister")
	return nil
}

// wordGPU is a GPU whose memory this process can address a word of (the stand-in's).
type wordGPU interface {
	Word(p device.Ptr) *uint64
}

// conn carries this rank's port-channel work to one peer.
type conn struct {
	n    *network
	peer *channels.Mesh
	rank int
}

// Transport implements channels.Connection.
func (c *conn) Transport() channels.Transport { return Transport }

// Handle implements channels.Connection.
func (c *conn) Handle(ch *channels.ProxyChannel, t channels.Trigger) error {
	return channels.RunSteps(c, ch, t)
}

// dst returns where n bytes at off of the peer's region r lie in its GPU's memory.
func (c *conn) dst(r channels.Region, off, n uint64) (device.Ptr, error) {
	if c.n.opts.Registers {
		if r.Key != regKey {
			return 0, fmt.Errorf("stub to rank %d: key %#x, want %#x", c.rank, r.Key, regKey)
		}
		return r.Ptr().Add(off), nil
	}
	l, err := c.peer.Memories().Span(r.ID, r.Off+off, n)
	if err != nil {
		return 0, fmt.Errorf("stub to rank %d: %w", c.rank, err)
	}
	if l.Host != nil {
		return 0, fmt.Errorf("stub to rank %d: host-resident memory is not carried", c.rank)
	}
	return l.Ptr.Add(r.Off + off), nil
}

// Write implements channels.Stepper: a copy out of this GPU into the peer's.
func (c *conn) Write(ch *channels.ProxyChannel, t channels.Trigger) error {
	if ch.Src.Host != nil {
		return fmt.Errorf("stub to rank %d: host-resident memory is not carried", c.rank)
	}
	buf := make([]byte, t.Size())
	if err := c.n.m.GPU.CopyFromDevice(buf, ch.Src.Ptr().Add(t.SrcOffset())); err != nil {
		return err
	}
	dst, err := c.dst(ch.Dst, t.DstOffset(), t.Size())
	if err != nil {
		return err
	}
	return c.peer.GPU.CopyToDevice(dst, buf)
}

// Signal implements channels.Stepper: an atomic store into the peer's token, after the
// copies (which have all landed: they are synchronous).
func (c *conn) Signal(ch *channels.ProxyChannel) error {
	dst, err := c.dst(ch.Token, 0, 8)
	if err != nil {
		return err
	}
	w, ok := c.peer.GPU.(wordGPU)
	if !ok {
		return fmt.Errorf("stub to rank %d: the peer's GPU is not a stand-in", c.rank)
	}
	atomic.StoreUint64(w.Word(dst), ch.Outbound())
	return nil
}

// Flush implements channels.Stepper: nothing is in flight.
func (c *conn) Flush() error { return nil }

// Close implements channels.Connection.
func (c *conn) Close() error {
	c.n.record("close connection to rank %d", c.rank)
	return nil
}
