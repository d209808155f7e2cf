// Package ethernet is the Ethernet transport: TCP sockets between hosts (a control socket
// and several data sockets per pair, used both ways), with GPU data staged through pinned
// host memory by sender and receiver threads. It registers itself with channels in its
// init; MeasureTCP measures a pair's raw socket rate. Its options are
// Options, set in channels.MeshOptions.
package ethernet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// resolveOptions fills zero fields with the defaults and checks them.
func resolveOptions(o Options) (Options, error) {
	if o.Sockets == 0 {
		o.Sockets = 12
	}
	if o.Chunk == 0 {
		o.Chunk = 4 << 20
	}
	if o.Depth == 0 {
		o.Depth = 2
	}
	if o.Pieces == 0 {
		o.Pieces = 4
	}
	if o.Inline > MaxInline {
		return o, fmt.Errorf("ethernet: inline writes of up to %d bytes (at most %d)", o.Inline, MaxInline)
	}
	if o.Spin < 0 || o.Spin > MaxSpin {
		return o, fmt.Errorf("ethernet: spin %v (0 to %v)", o.Spin, MaxSpin)
	}
	if o.Chunk%4096 != 0 || o.Chunk < MinChunk || o.Chunk > MaxChunk || o.Sockets < 1 || o.Sockets > MaxSockets || o.Depth < 1 || o.Depth > MaxDepth || o.Pieces < 1 || o.Pieces > MaxPieces || o.SocketBuffer < 0 {
		return o, fmt.Errorf("ethernet: %d sockets, %d-byte chunks (a multiple of 4096 from %d to %d), depth %d, %d pieces, socket buffer %d", o.Sockets, o.Chunk, MinChunk, MaxChunk, o.Depth, o.Pieces, o.SocketBuffer)
	}
	return o, nil
}

// Transport is the Ethernet transport's bit.
const Transport channels.Transport = 4

// Mode connects every pair over Ethernet (--transport ethernet).
const Mode = channels.Mode(Transport)

func init() {
	channels.RegisterTransport(channels.TransportInfo{
		Transport: Transport, Name: "ethernet", Title: "Ethernet", Flag: "ethernet",
		Priority: 100, // below InfiniBand
		Offer:    channels.OfferAlways,
		Lacking:  "has no Ethernet data listener",
		Open:     openEthernet,
	})
}

// OptionsOf returns the Ethernet options in o (the zero Options when it has none).
func OptionsOf(o channels.MeshOptions) Options {
	v, _ := o.TransportOptions(Transport).(Options)
	return v
}

// Sockets returns the data sockets per peer that endpoint e offers over Ethernet, or 0
// when it offers none.
func Sockets(e channels.Endpoint) int {
	p, err := peerOf(e)
	if err != nil {
		return 0
	}
	return p.sockets
}

// peerInfo is what a rank's endpoint section says of its Ethernet side: the data
// listener's address, the data sockets it opens per peer and the largest piece it
// receives in one message.
type peerInfo struct {
	rank    int
	nonce   uint64
	addr    string
	sockets int
	chunk   uint64
}

// Wire format of the endpoint section, little endian: sockets u32, chunk u64, then the
// listener's "ip:port".
func (p peerInfo) section() []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(p.sockets))
	b = binary.LittleEndian.AppendUint64(b, p.chunk)
	return append(b, p.addr...)
}

// peerOf decodes endpoint e's Ethernet section.
func peerOf(e channels.Endpoint) (peerInfo, error) {
	b := e.Section(Transport)
	if len(b) < 12 {
		return peerInfo{}, fmt.Errorf("ethernet: endpoint of rank %d has a section of %d bytes, want at least 12", e.Rank, len(b))
	}
	p := peerInfo{rank: e.Rank, nonce: e.Nonce, sockets: int(binary.LittleEndian.Uint32(b)), chunk: binary.LittleEndian.Uint64(b[4:]), addr: string(b[12:])}
	if p.sockets < 1 || p.sockets > MaxSockets || p.chunk < MinChunk || p.chunk > MaxChunk {
		return peerInfo{}, fmt.Errorf("ethernet: endpoint of rank %d: %d sockets, %d-byte chunks", e.Rank, p.sockets, p.chunk)
	}
	return p, nil
}

// ethNetwork is the Ethernet transport as a mesh sees it: the data listener, opened
// before the endpoints are exchanged, and the mesh whose peers it connects.
type ethNetwork struct {
	n  *ethNet
	m  *channels.Mesh
	me peerInfo
}

// openEthernet is the Ethernet transport's OpenFunc: it opens the data listener and puts
// its address, socket count and chunk size into this rank's endpoint.
func openEthernet(m *channels.Mesh, me *channels.Endpoint) (channels.Network, error) {
	if v := m.Opts.TransportOptions(Transport); v != nil {
		if _, ok := v.(Options); !ok {
			return nil, fmt.Errorf("ethernet: options of type %T, want ethernet.Options", v)
		}
	}
	eth, err := listenEthernet(m.Boot, m.Rank, me.Nonce, OptionsOf(m.Opts), m.Opts.Timeout)
	if err != nil {
		return nil, err
	}
	mine := peerInfo{rank: me.Rank, nonce: me.Nonce, addr: eth.addr(), sockets: eth.opts.Sockets, chunk: eth.opts.Chunk}
	return &ethNetwork{n: eth, m: m, me: mine}, nil
}

// EndpointSection implements channels.EndpointFiller: the listener's address, the data
// sockets and the chunk size.
func (w *ethNetwork) EndpointSection() []byte { return w.me.section() }

// Connect implements Network: it opens every pair's sockets and closes the listener.
func (w *ethNetwork) Connect(peers []int) (map[int]channels.Connection, error) {
	eps := map[int]peerInfo{}
	for _, p := range peers {
		info, err := peerOf(w.m.Endpoints[p])
		if err != nil {
			w.n.ln.Close()
			return nil, err
		}
		eps[p] = info
	}
	if w.n.opts.Inline == 0 {
		w.n.opts.Inline = inlineFor(w.m.Endpoints, w.m.Rank)
	}
	return w.n.connectPeers(w.me, eps, peers, w.m.GPU, w.m.Memories(), w.m.ConnectionFailed)
}

// inlineFor is Options.Inline's default for rank me of a job with endpoints eps.
func inlineFor(eps []channels.Endpoint, me int) uint64 {
	for _, e := range eps {
		if e.Rank != me && e.HostID == eps[me].HostID {
			return MaxInline
		}
	}
	return AloneInline
}

// Close implements Network.
func (w *ethNetwork) Close() error { return w.n.close() }

// ethNet is this rank's Ethernet side during set-up: the data listener and the sockets
// that lower ranks opened to it.
type ethNet struct {
	rank    int
	nonce   uint64
	opts    Options
	timeout time.Duration
	ln      net.Listener

	mu       sync.Mutex
	accepted map[int]map[int]net.Conn // dialing rank → socket index → connection
	changed  chan struct{}            // closed and replaced whenever accepted grows
	closed   bool
}

// listenEthernet opens the data listener on the chosen interface.
func listenEthernet(boot channels.Bootstrap, rank int, nonce uint64, o Options, timeout time.Duration) (*ethNet, error) {
	opts, err := resolveOptions(o)
	if err != nil {
		return nil, err
	}
	ip := opts.ListenIP
	if !ip.IsValid() {
		if ip, err = ethListenIP(boot, opts.Ifname); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", netip.AddrPortFrom(ip, 0).String())
	if err != nil {
		return nil, fmt.Errorf("ethernet: listen on %s: %w", ip, err)
	}
	n := &ethNet{rank: rank, nonce: nonce, opts: opts, timeout: timeout, ln: ln,
		accepted: map[int]map[int]net.Conn{}, changed: make(chan struct{})}
	go n.acceptLoop()
	return n, nil
}

// ethListenIP picks the data listener's address: ifname's interface, else the
// bootstrap's own address, else loopback.
func ethListenIP(boot channels.Bootstrap, ifname string) (netip.Addr, error) {
	if spec := ifname; strings.TrimSpace(spec) != "" {
		_, ip, err := bootstrap.MatchInterface(spec)
		return ip, err
	}
	if b, ok := boot.(interface{ LocalAddr() netip.AddrPort }); ok && b.LocalAddr().Addr().IsValid() && !b.LocalAddr().Addr().IsUnspecified() {
		return b.LocalAddr().Addr(), nil
	}
	return netip.AddrFrom4([4]byte{127, 0, 0, 1}), nil
}

func (n *ethNet) addr() string { return n.ln.Addr().String() }

// The hello a dialing rank sends on every data socket, and the acceptor's answer.
const (
	ethHelloMagic = 0x4d424554 // "MBET"
	ethVersion    = 2          // 2: a control socket (index 0) for marks and small writes
	ethHelloSize  = 32
)

type ethHello struct {
	index, count int // socket index, sockets the dialer opens
	from, to     int
	nonce        uint64 // the acceptor's endpoint nonce
}

func (h ethHello) encode() []byte {
	b := make([]byte, 0, ethHelloSize)
	b = binary.LittleEndian.AppendUint32(b, ethHelloMagic)
	b = binary.LittleEndian.AppendUint16(b, ethVersion)
	b = binary.LittleEndian.AppendUint16(b, uint16(h.index))
	b = binary.LittleEndian.AppendUint32(b, uint32(h.from))
	b = binary.LittleEndian.AppendUint32(b, uint32(h.to))
	b = binary.LittleEndian.AppendUint64(b, h.nonce)
	b = binary.LittleEndian.AppendUint32(b, uint32(h.count))
	return binary.LittleEndian.AppendUint32(b, 0)
}

func decodeEthHello(b []byte) (ethHello, error) {
	if len(b) < ethHelloSize {
		return ethHello{}, fmt.Errorf("truncated: need %d bytes, have %d", ethHelloSize, len(b))
	}
	le := binary.LittleEndian
	if m := le.Uint32(b); m != ethHelloMagic {
		return ethHello{}, fmt.Errorf("bad magic 0x%x", m)
	}
	if v := le.Uint16(b[4:]); v != ethVersion {
		return ethHello{}, fmt.Errorf("version %d, want %d", v, ethVersion)
	}
	return ethHello{index: int(le.Uint16(b[6:])), from: int(le.Uint32(b[8:])), to: int(le.Uint32(b[12:])),
		nonce: le.Uint64(b[16:]), count: int(le.Uint32(b[24:]))}, nil
}

func (n *ethNet) acceptLoop() {
	for {
		c, err := n.ln.Accept()
		if err != nil {
			return // the listener was closed
		}
		go n.handshake(c)
	}
}

// handshake checks a data socket's hello; a stray or foreign connection is dropped.
func (n *ethNet) handshake(c net.Conn) {
	c.SetDeadline(time.Now().Add(n.timeout))
	buf := make([]byte, ethHelloSize)
	if _, err := io.ReadFull(c, buf); err != nil {
		c.Close()
		return
	}
	h, err := decodeEthHello(buf)
	if err != nil || h.to != n.rank || h.nonce != n.nonce || h.from < 0 || h.from >= n.rank || h.index < 0 || h.index >= h.count {
		fmt.Fprintf(os.Stderr, "mscclpp-bench: rank %d: refused a data connection from %s (hello %+v, %v)\n", n.rank, c.RemoteAddr(), h, err)
		c.Close()
		return
	}
	// Acknowledge before the socket is handed over: the connection made of it takes the
	// socket out of the poller (closing this net.Conn) as soon as the last one arrives.
	n.mu.Lock()
	refuse := n.closed || n.accepted[h.from][h.index] != nil
	n.mu.Unlock()
	if refuse || writeAck(c) != nil {
		c.Close()
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	socks := n.accepted[h.from]
	if socks == nil {
		socks = map[int]net.Conn{}
		n.accepted[h.from] = socks
	}
	if n.closed || socks[h.index] != nil {
		c.Close()
		return
	}
	socks[h.index] = c
	close(n.changed)
	n.changed = make(chan struct{})
}

func writeAck(c net.Conn) error {
	_, err := c.Write(binary.LittleEndian.AppendUint32(nil, ethHelloMagic))
	return err
}

// connectPeers opens the data sockets of every Ethernet pair (the lower rank dials, the
// higher one accepts) and starts a connection per peer. It closes the listener.
func (n *ethNet) connectPeers(me peerInfo, eps map[int]peerInfo, peers []int, g device.GPU, reg channels.Memories, onError func(error)) (map[int]channels.Connection, error) {
	defer n.ln.Close()
	deadline := time.Now().Add(n.timeout)
	type result struct {
		peer  int
		socks []net.Conn
		err   error
	}
	results := make(chan result, len(peers))
	for _, p := range peers {
		count := min(me.sockets, eps[p].sockets) + 1 // and the control socket
		go func(p int) {
			var socks []net.Conn
			var err error
			if p > me.rank {
				socks, err = n.dial(eps[p], count, deadline)
			} else {
				socks, err = n.await(p, count, deadline)
			}
			results <- result{p, socks, err}
		}(p)
	}
	copier := n.opts.Copier
	if copier == nil {
		copier = DeviceCopier(g)
	}
	// Each socket's sender and receiver spend their time blocked in system calls; on the
	// way out of one a thread needs a Go P at once, or it waits for the scheduler (its P
	// was handed to another thread meanwhile). One P per thread of the connections, and
	// two for the proxy and the rank's main goroutine.
	threads := 2
	for _, p := range peers {
		threads += 2*min(me.sockets, eps[p].sockets) + 1
	}
	if runtime.GOMAXPROCS(0) < threads {
		runtime.GOMAXPROCS(threads)
	}
	spin := n.opts.Spin
	if !Polls(n.opts.MachineCPUs, n.opts.SharedBy, len(peers)) {
		spin = 0
	}
	spread := uint64(Spread(n.opts.MachineCPUs, n.opts.SharedBy, len(peers), spin > 0))
	conns := map[int]channels.Connection{}
	var first error
	for range peers {
		r := <-results
		if r.err != nil {
			if first == nil {
				first = fmt.Errorf("ethernet: connect rank %d to rank %d (%s): %w", me.rank, r.peer, eps[r.peer].addr, r.err)
			}
			closeAll(r.socks)
			continue
		}
		if first != nil {
			closeAll(r.socks)
			continue
		}
		n.tune(r.socks)
		peerFail := func(err error) { onError(fmt.Errorf("ethernet connection to rank %d: %w", r.peer, err)) }
		c, err := newEthConn(r.peer, r.socks, min(n.opts.Chunk, eps[r.peer].chunk), n.opts.Chunk, n.opts.Depth, n.opts.Pieces, n.opts.Inline, n.timeout, copier, reg, peerFail, n.opts.CPUs, spin)
		if err != nil {
			first = fmt.Errorf("ethernet: rank %d to rank %d: %w", me.rank, r.peer, err)
			continue
		}
		c.spread = spread
		conns[r.peer] = c
	}
	return conns, first
}

// dial opens count sockets to a higher rank and waits for each acknowledgement.
func (n *ethNet) dial(peer peerInfo, count int, deadline time.Time) ([]net.Conn, error) {
	var socks []net.Conn
	d := net.Dialer{Deadline: deadline}
	for i := 0; i < count; i++ {
		c, err := d.Dial("tcp", peer.addr)
		if err != nil {
			return socks, err
		}
		socks = append(socks, c)
		c.SetDeadline(deadline)
		if _, err := c.Write(ethHello{index: i, count: count, from: n.rank, to: peer.rank, nonce: peer.nonce}.encode()); err != nil {
			return socks, fmt.Errorf("socket %d: hello: %w", i, err)
		}
		var ack [4]byte
		if _, err := io.ReadFull(c, ack[:]); err != nil || binary.LittleEndian.Uint32(ack[:]) != ethHelloMagic {
			return socks, fmt.Errorf("socket %d: rank %d refused the connection (%v)", i, peer.rank, err)
		}
		c.SetDeadline(time.Time{})
	}
	return socks, nil
}

// await waits until a lower rank has opened its count sockets.
func (n *ethNet) await(peer, count int, deadline time.Time) ([]net.Conn, error) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		n.mu.Lock()
		socks, changed := n.accepted[peer], n.changed
		if len(socks) == count {
			out := make([]net.Conn, count)
			for i, c := range socks {
				out[i] = c
			}
			delete(n.accepted, peer)
			n.mu.Unlock()
			for _, c := range out {
				c.SetDeadline(time.Time{})
			}
			return out, nil
		}
		n.mu.Unlock()
		select {
		case <-changed:
		case <-timer.C:
			return nil, fmt.Errorf("%w: %d of %d data sockets arrived within %v", errEthTimeout, len(socks), count, n.timeout)
		}
	}
}

var errEthTimeout = errors.New("timed out")

// tune sets the socket options: no Nagle delay (signals are small and must leave at
// once) and, when asked, fixed buffer sizes.
func (n *ethNet) tune(socks []net.Conn) {
	for _, c := range socks {
		tc, ok := c.(*net.TCPConn)
		if !ok {
			continue
		}
		tc.SetNoDelay(true)
		if n.opts.SocketBuffer > 0 {
			tc.SetReadBuffer(n.opts.SocketBuffer)
			tc.SetWriteBuffer(n.opts.SocketBuffer)
		}
	}
}

// close drops the listener and any socket no connection took over.
func (n *ethNet) close() error {
	n.ln.Close()
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	for _, socks := range n.accepted {
		for _, c := range socks {
			c.Close()
		}
	}
	n.accepted = map[int]map[int]net.Conn{}
	return nil
}

func closeAll(socks []net.Conn) {
	for _, c := range socks {
		if c != nil {
			c.Close()
		}
	}
}
