package channels

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// MeshOptions configure a Mesh.
type MeshOptions struct {
	Mode          Mode          // how pairs of ranks connect (--transport)
	Timeout       time.Duration // bounds every wait: device spins, proxy flushes, stream syncs, connecting
	Hostname      string
	HostID        string // ranks with equal HostIDs share a host; "" means Hostname
	FifoSize      int    // proxy FIFO slots (power of two); 0 = 512
	MaxSemaphores int    // semaphore ids per peer; 0 = 1024
	// Proxy says where the proxy thread runs (affinity.Plan); the zero value keeps the
	// rank's own binding.
	Proxy affinity.Placement
	// Transports holds each transport's own options, by its bit (the type is the
	// transport's: ethernet.Options, ib.Options); a transport missing here takes its
	// defaults. Set it with SetTransportOptions. It does not travel in JSON: the values'
	// types are the transports'.
	Transports map[Transport]any `json:"-"`
	// ProxyTrace records every proxy trigger (the first 65536), with when it was handled
	// and how long that took, and logs them on stderr when the mesh closes, so that the
	// logging costs the proxy no time (MSCCLPP_BENCH_PROXY_TRACE).
	ProxyTrace bool
}

// SetTransportOptions sets transport t's options. It copies the map first, so that a
// copy of o keeps the options it had.
func (o *MeshOptions) SetTransportOptions(t Transport, opts any) {
	m := make(map[Transport]any, len(o.Transports)+1)
	for k, v := range o.Transports {
		m[k] = v
	}
	m[t] = opts
	o.Transports = m
}

// TransportOptions returns transport t's options, or nil.
func (o MeshOptions) TransportOptions(t Transport) any { return o.Transports[t] }

// Mesh connects every rank's GPU to every other rank's, each pair over the transport
// SelectTransport picks: it exchanges endpoints, makes the connections, shares semaphore
// tokens, and builds memory and port channels over registered buffers. All ranks must
// make the same calls in the same order (ids are allocated in lockstep).
//
// The concerns live in their own files: connect.go (endpoints, transports, connections),
// register.go (registered memory), semaphore.go (tokens), memory_channel.go and
// port_channel.go (the channels, next to the device halves in kernels/include/mscclpp).
type Mesh struct {
	GPU    device.GPU
	Boot   Bootstrap
	Rank   int
	NRanks int
	Opts   MeshOptions

	Endpoints []Endpoint
	Conns     map[int]Connection    // by peer rank
	pairs     [][]Transport         // every pair's transport, [i][j] = [j][i]
	offered   Transport             // the transports of this rank's connections
	network   bool                  // some pair of the job uses a network transport
	nets      map[Transport]Network // the transports opened on this rank

	reg        registry
	tokens     device.Ptr         // inbound tokens: [nranks][maxSem]uint64, written by peers
	expected   device.Ptr         // expected counters, same layout, local only
	peerTokens []device.Ptr       // rank r's token array mapped here (CUDA IPC peers)
	tokenMems  []RegisteredMemory // every rank's token array registration
	nextSem    int
	opened     []device.Ptr
	allocs     []device.Ptr
	hostAllocs []unsafe.Pointer // host-resident memory (ShareHost)

	hostTok     *hostTokens        // inbound tokens of port channels made with HostTokens
	hostTokMems []RegisteredMemory // every rank's host token registration (network peers)

	errHost unsafe.Pointer // mapped word the kernels record their first error in
	errDev  device.Ptr

	connMu  sync.Mutex
	connErr error // first error of a connection's own goroutines

	fifo  *gpuFifo
	proxy *ProxyService
	trace *proxyTrace // ProxyTrace's record
}

// NewMesh exchanges endpoints, connects to every peer, and shares semaphore tokens.
func NewMesh(g device.GPU, boot Bootstrap, opts MeshOptions) (*Mesh, error) {
	if opts.FifoSize == 0 {
		opts.FifoSize = 512
	}
	if opts.MaxSemaphores == 0 {
		opts.MaxSemaphores = 1024
	}
	if opts.HostID == "" {
		opts.HostID = opts.Hostname
	}
	if opts.Timeout <= 0 {
		return nil, fmt.Errorf("mesh: timeout must be positive")
	}
	m := &Mesh{GPU: g, Boot: boot, Rank: boot.Rank(), NRanks: boot.NRanks(), Opts: opts, Conns: map[int]Connection{},
		nets: map[Transport]Network{}}
	ok := false
	defer func() {
		if !ok {
			_ = m.Close()
		}
	}()
	var err error
	if m.errHost, m.errDev, err = g.AllocMapped(64); err != nil {
		return nil, fmt.Errorf("mesh: device error word: %w", err)
	}
	if err := g.SetDeviceConfig(opts.Timeout, m.errDev, m.Rank, m.NRanks); err != nil {
		return nil, fmt.Errorf("mesh: %w", err)
	}
	if err := m.connect(); err != nil {
		return nil, fmt.Errorf("mesh: %w", err)
	}
	if err := m.setupSemaphores(); err != nil {
		return nil, err
	}
	if err := boot.Barrier(); err != nil {
		return nil, fmt.Errorf("mesh: %w", err)
	}
	ok = true
	return m, nil
}

// Peers returns every other rank in ascending order.
func (m *Mesh) Peers() []int {
	out := make([]int, 0, m.NRanks-1)
	for r := 0; r < m.NRanks; r++ {
		if r != m.Rank {
			out = append(out, r)
		}
	}
	return out
}

// checkPeers refuses a peer list that names this rank, a rank outside the job, or a rank twice.
func (m *Mesh) checkPeers(peers []int) error {
	seen := make(map[int]bool, len(peers))
	for _, p := range peers {
		if p == m.Rank || p < 0 || p >= m.NRanks || seen[p] {
			return fmt.Errorf("mesh: rank %d: bad peer list %v (%d ranks)", m.Rank, peers, m.NRanks)
		}
		seen[p] = true
	}
	return nil
}

// PairTransport returns the transport between ranks i and j (i != j).
func (m *Mesh) PairTransport(i, j int) Transport { return m.pairs[i][j] }

// Alloc allocates zeroed device memory that Close frees.
func (m *Mesh) Alloc(bytes uint64) (device.Ptr, error) {
	p, err := m.GPU.Alloc(bytes)
	if err != nil {
		return 0, fmt.Errorf("mesh: rank %d: %w", m.Rank, err)
	}
	m.allocs = append(m.allocs, p)
	if err := m.GPU.Memset(p, 0, bytes); err != nil {
		return 0, fmt.Errorf("mesh: rank %d: zero %d bytes: %w", m.Rank, bytes, err)
	}
	return p, nil
}

// Upload copies handles (or any bytes) to new device memory that Close frees.
func (m *Mesh) Upload(b []byte) (device.Ptr, error) {
	p, err := m.Alloc(uint64(len(b)))
	if err != nil {
		return 0, err
	}
	if err := m.GPU.CopyToDevice(p, b); err != nil {
		return 0, fmt.Errorf("upload %d bytes: %w", len(b), err)
	}
	return p, nil
}

// connFailed records the first error of a connection's goroutines (a lost peer, a bad
// message) and stops this rank's device waits, as a proxy error does.
func (m *Mesh) connFailed(err error) {
	m.connMu.Lock()
	first := m.connErr == nil
	if first {
		m.connErr = err
		if m.errHost != nil {
			atomic.CompareAndSwapUint64((*uint64)(m.errHost), 0, uint64(DevErrProxy)|uint64(0xffff)<<24)
		}
	}
	m.connMu.Unlock()
	if first {
		fmt.Fprintf(os.Stderr, "mscclpp-bench: rank %d: %v\n", m.Rank, err)
	}
}

// DeviceError returns the first error of a connection, a kernel or the proxy, if any.
func (m *Mesh) DeviceError() error {
	m.connMu.Lock()
	connErr := m.connErr
	m.connMu.Unlock()
	if connErr != nil {
		return fmt.Errorf("rank %d: %w", m.Rank, connErr)
	}
	if m.errHost != nil {
		if e, ok := DecodeDeviceError(atomic.LoadUint64((*uint64)(m.errHost))); ok {
			return fmt.Errorf("rank %d: %w", m.Rank, e)
		}
	}
	if m.proxy != nil {
		if err := m.proxy.Err(); err != nil {
			return fmt.Errorf("rank %d: %w", m.Rank, err)
		}
	}
	return nil
}

// Sync waits for stream s (bounded by the mesh timeout) and reports any device error.
func (m *Mesh) Sync(s device.Stream) error {
	err := m.GPU.Synchronize(s, m.Opts.Timeout)
	if derr := m.DeviceError(); derr != nil {
		return derr
	}
	if err != nil {
		return fmt.Errorf("rank %d: %w (a peer may have stopped)", m.Rank, err)
	}
	return nil
}

// Close stops the proxy and releases everything the mesh made.
func (m *Mesh) Close() error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	if m.proxy != nil {
		keep(m.proxy.Stop())
		m.proxy = nil
	}
	m.trace.print(os.Stderr, m.Rank)
	m.trace = nil
	for p, c := range m.Conns {
		if err := c.Close(); err != nil {
			keep(fmt.Errorf("close connection to rank %d: %w", p, err))
		}
	}
	m.Conns = map[int]Connection{}
	// A network that registers no memory closes with its connections; one that does
	// (MemoryRegistrar) after the registrations made with it, below.
	for _, info := range Registered() {
		if _, ok := m.nets[info.Transport].(MemoryRegistrar); !ok {
			keep(m.closeNetwork(info.Transport))
		}
	}
	if m.fifo != nil {
		keep(m.fifo.close())
		m.fifo = nil
	}
	if m.hostTok != nil {
		keep(m.hostTok.close())
		m.hostTok = nil
	}
	for _, p := range m.opened {
		keep(m.GPU.IPCClose(p))
	}
	m.opened = nil
	for _, l := range m.reg.all() {
		for _, info := range Registered() {
			if r := l.regs[info.Transport]; r != nil {
				keep(r.Close())
			}
		}
	}
	m.reg.list.Store(nil)
	for _, info := range Registered() {
		keep(m.closeNetwork(info.Transport))
	}
	for _, p := range m.allocs {
		keep(m.GPU.Free(p))
	}
	m.allocs = nil
	for _, h := range m.hostAllocs {
		keep(m.GPU.FreeMapped(h))
	}
	m.hostAllocs = nil
	if m.errHost != nil {
		keep(m.GPU.FreeMapped(m.errHost))
		m.errHost = nil
	}
	return first
}

// StopProxy stops the proxy once it has handled every trigger pushed so far, and waits
// until each connection that sends after Handle returns has sent its signals and small
// writes (Drainer: Ethernet's control socket, InfiniBand's posted work requests), so that
// once every rank has returned from it (a barrier) no signal is still on its way; the
// pieces of a larger Ethernet write are awaited by whoever waits for the signal after
// them. Close stops the proxy too. Call it only once the kernels that push triggers have
// ended.
func (m *Mesh) StopProxy() error {
	if m.proxy == nil {
		return nil
	}
	err := m.proxy.Stop()
	for _, p := range m.Peers() {
		d, ok := m.Conns[p].(Drainer)
		if !ok {
			continue
		}
		if derr := d.Drain(); derr != nil && err == nil {
			err = fmt.Errorf("mesh: rank %d: connection to rank %d: %w", m.Rank, p, derr)
		}
	}
	return err
}

// Proxy returns the mesh's proxy service, or nil before a port channel has started it.
func (m *Mesh) Proxy() *ProxyService { return m.proxy }

// ErrorWordPtr returns the device address of the device error word.
func (m *Mesh) ErrorWordPtr() device.Ptr { return m.errDev }

// ClearDeviceError forgets a recorded device error (tests that provoke one).
func (m *Mesh) ClearDeviceError() {
	if m.errHost != nil {
		atomic.StoreUint64((*uint64)(m.errHost), 0)
	}
}
