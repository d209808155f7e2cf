package channels

import (
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// MeshOptions configure a Mesh.
type MeshOptions struct {
	Transport     Transport
	Timeout       time.Duration // bounds every wait: device spins, proxy flushes, stream syncs
	Hostname      string
	FifoSize      int // proxy FIFO slots (power of two); 0 = 512
	MaxSemaphores int // semaphore ids per peer; 0 = 1024
	// Proxy says where the proxy thread runs (affinity.Plan); the zero value keeps the
	// rank's own binding.
	Proxy affinity.Placement
}

// Mesh connects every rank's GPU to every other rank's: it checks the paths, maps peers'
// semaphore tokens, and builds memory and port channels over registered buffers. All ranks
// must make the same calls in the same order (ids are allocated in lockstep).
type Mesh struct {
	GPU    device.GPU
	Boot   Bootstrap
	Rank   int
	NRanks int
	Opts   MeshOptions

	Endpoints []Endpoint
	Conns     map[int]*Connection

	tokens     device.Ptr   // inbound tokens: [nranks][maxSem]uint64, written by peers
	expected   device.Ptr   // expected counters, same layout, local only
	peerTokens []device.Ptr // rank r's token array mapped here
	nextSem    int
	opened     []device.Ptr
	allocs     []device.Ptr

	hostTok *hostTokens // inbound tokens of port channels made with HostTokens

	errHost unsafe.Pointer // mapped word the kernels record their first error in
	errDev  device.Ptr

	fifo    *gpuFifo
	proxy   *ProxyService
	streams map[int]device.Stream
}

// Buffer is a registered buffer and every rank's copy of it as mapped here: Ptrs[r] is
// rank r's buffer (Ptrs[own rank] is the local one).
type Buffer struct {
	Ptrs  []device.Ptr
	Sizes []uint64
}

const tagEndpoint = 1

// NewMesh exchanges endpoints, connects to every peer, and shares semaphore tokens.
func NewMesh(g device.GPU, boot Bootstrap, opts MeshOptions) (*Mesh, error) {
	if opts.Transport == TransportIB {
		return nil, ErrIBNotBuilt
	}
	if opts.FifoSize == 0 {
		opts.FifoSize = 512
	}
	if opts.MaxSemaphores == 0 {
		opts.MaxSemaphores = 1024
	}
	if opts.Timeout <= 0 {
		return nil, fmt.Errorf("mesh: timeout must be positive")
	}
	m := &Mesh{GPU: g, Boot: boot, Rank: boot.Rank(), NRanks: boot.NRanks(), Opts: opts, Conns: map[int]*Connection{}, streams: map[int]device.Stream{}}
	ok := false
	defer func() {
		if !ok {
			_ = m.Close()
		}
	}()
	info := g.Info()
	me := Endpoint{Rank: m.Rank, Transport: opts.Transport, Pid: os.Getpid(), Device: info.Ordinal, Hostname: opts.Hostname, BusID: info.BusID, GPUName: info.Name}
	blob, err := me.MarshalBinary()
	if err != nil {
		return nil, err
	}
	all, err := boot.AllGather(blob)
	if err != nil {
		return nil, fmt.Errorf("mesh: exchange endpoints: %w", err)
	}
	m.Endpoints = make([]Endpoint, m.NRanks)
	for r, b := range all {
		if err := m.Endpoints[r].UnmarshalBinary(b); err != nil {
			return nil, fmt.Errorf("mesh: endpoint of rank %d: %w", r, err)
		}
		if m.Endpoints[r].Rank != r {
			return nil, fmt.Errorf("mesh: endpoint in slot %d claims rank %d", r, m.Endpoints[r].Rank)
		}
	}
	for _, p := range m.Peers() {
		c, err := Connect(g, me, m.Endpoints[p], opts.Transport)
		if err != nil {
			return nil, fmt.Errorf("mesh: %w", err)
		}
		m.Conns[p] = c
	}

	m.errHost, m.errDev, err = g.AllocMapped(64)
	if err != nil {
		return nil, fmt.Errorf("mesh: device error word: %w", err)
	}
	if err := g.SetDeviceConfig(opts.Timeout, m.errDev, m.Rank, m.NRanks); err != nil {
		return nil, fmt.Errorf("mesh: %w", err)
	}
	tokenBytes := uint64(m.NRanks*opts.MaxSemaphores) * 8
	if m.tokens, err = m.Alloc(tokenBytes); err != nil {
		return nil, err
	}
	if m.expected, err = m.Alloc(tokenBytes); err != nil {
		return nil, err
	}
	tok, err := m.Share(m.tokens, tokenBytes)
	if err != nil {
		return nil, fmt.Errorf("mesh: share semaphore tokens: %w", err)
	}
	m.peerTokens = tok.Ptrs
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

// Register describes a whole local allocation for other ranks.
func (m *Mesh) Register(p device.Ptr, size uint64) (RegisteredMemory, error) {
	h, err := m.GPU.IpcGetHandle(p)
	if err != nil {
		return RegisteredMemory{}, fmt.Errorf("register %d bytes at %v on rank %d: %w", size, p, m.Rank, err)
	}
	return RegisteredMemory{Rank: m.Rank, Size: size, Transports: m.Opts.Transport, Handle: h, Ptr: p}, nil
}

// Share registers a local allocation, exchanges it with every rank and maps the peers'
// copies. Every rank calls it with its own buffer.
func (m *Mesh) Share(p device.Ptr, size uint64) (*Buffer, error) {
	mine, err := m.Register(p, size)
	if err != nil {
		return nil, err
	}
	blob, err := mine.MarshalBinary()
	if err != nil {
		return nil, err
	}
	all, err := m.Boot.AllGather(blob)
	if err != nil {
		return nil, fmt.Errorf("exchange registered memory: %w", err)
	}
	b := &Buffer{Ptrs: make([]device.Ptr, m.NRanks), Sizes: make([]uint64, m.NRanks)}
	for r, blob := range all {
		var rm RegisteredMemory
		if err := rm.UnmarshalBinary(blob); err != nil {
			return nil, fmt.Errorf("registered memory of rank %d: %w", r, err)
		}
		if rm.Rank != r {
			return nil, fmt.Errorf("registered memory in slot %d claims rank %d", r, rm.Rank)
		}
		b.Sizes[r] = rm.Size
		if r == m.Rank {
			b.Ptrs[r] = p
			continue
		}
		q, err := m.GPU.IpcOpen(rm.Handle)
		if err != nil {
			return nil, fmt.Errorf("map %d-byte buffer of rank %d (GPU %s): %w", rm.Size, r, m.Endpoints[r].BusID, err)
		}
		m.opened = append(m.opened, q)
		b.Ptrs[r] = q.Add(rm.Offset)
	}
	return b, nil
}

func (m *Mesh) nextSemaphore() (int, error) {
	if m.nextSem >= m.Opts.MaxSemaphores {
		return 0, fmt.Errorf("mesh: all %d semaphore ids are in use", m.Opts.MaxSemaphores)
	}
	m.nextSem++
	return m.nextSem - 1, nil
}

// token returns rank `from`'s slot id in the token array at base.
func (m *Mesh) token(base device.Ptr, from, id int) device.Ptr {
	return base.Add(uint64(from*m.Opts.MaxSemaphores+id) * 8)
}

// MemoryChannels makes one memory channel per peer (in Peers order) from local memory at
// local to the peer's copy of remote, each with a new device-to-device semaphore.
func (m *Mesh) MemoryChannels(remote *Buffer, local device.Ptr) ([]MemoryChannelHandle, error) {
	id, err := m.nextSemaphore()
	if err != nil {
		return nil, err
	}
	var out []MemoryChannelHandle
	for _, p := range m.Peers() {
		out = append(out, MemoryChannelHandle{
			Sem: DeviceSemaphoreHandle{
				Inbound:       uint64(m.token(m.tokens, p, id)),
				RemoteInbound: uint64(m.token(m.peerTokens[p], m.Rank, id)),
				Expected:      uint64(m.token(m.expected, p, id)),
			},
			Remote: uint64(remote.Ptrs[p]),
			Local:  uint64(local),
			Peer:   uint32(p),
			Index:  uint32(id),
		})
	}
	return out, nil
}

// PortOption changes how PortChannels builds its channels.
type PortOption int

const (
	// HostTokens keeps the channels' semaphore tokens in host memory that the node's ranks
	// share, instead of in GPU memory. A signal with no copy in flight is then a CPU store
	// by the proxy rather than a stream write: about 3 µs one way instead of 7 on 2×H200.
	// Every wait polls host memory over PCIe, though: right for a few waiting threads (a
	// ping-pong), wrong for kernels whose every block polls (a collective slowed 18×).
	HostTokens PortOption = iota + 1
)

// PortChannels makes one port channel per peer (in Peers order): the proxy copies from
// local[0, localSize) to the peer's copy of remote and signals a host-to-device semaphore.
func (m *Mesh) PortChannels(remote *Buffer, local device.Ptr, localSize uint64, opts ...PortOption) ([]PortChannelHandle, error) {
	if err := m.startProxy(); err != nil {
		return nil, err
	}
	useHost := slices.Contains(opts, HostTokens)
	if useHost && m.hostTok == nil {
		var err error
		if m.hostTok, err = newHostTokens(m.GPU, m.Boot, uint64(m.NRanks*m.Opts.MaxSemaphores)*8); err != nil {
			return nil, fmt.Errorf("mesh: %w", err)
		}
	}
	id, err := m.nextSemaphore()
	if err != nil {
		return nil, err
	}
	var out []PortChannelHandle
	for _, p := range m.Peers() {
		s, ok := m.streams[p]
		if !ok {
			if s, err = m.GPU.NewStream(); err != nil {
				return nil, fmt.Errorf("proxy stream for rank %d: %w", p, err)
			}
			m.streams[p] = s
		}
		pc := &ProxyChannel{
			Peer: p, Stream: s,
			Dst: remote.Ptrs[p], DstSize: remote.Sizes[p],
			Src: local, SrcSize: localSize,
			RemoteInbound: m.token(m.peerTokens[p], m.Rank, id),
		}
		inbound := m.token(m.tokens, p, id)
		if useHost {
			pc.RemoteInbound = m.token(m.hostTok.devs[p], m.Rank, id)
			pc.RemoteInboundHost = m.hostTok.word(p, m.Rank*m.Opts.MaxSemaphores+id)
			inbound = m.token(m.hostTok.devs[m.Rank], p, id)
		}
		cid, err := m.proxy.AddChannel(pc)
		if err != nil {
			return nil, err
		}
		out = append(out, PortChannelHandle{
			Sem:  HostSemaphoreHandle{Inbound: uint64(inbound), Expected: uint64(m.token(m.expected, p, id))},
			Fifo: m.fifo.Handle(),
			ID:   cid,
			Peer: uint32(p),
		})
	}
	return out, nil
}

func (m *Mesh) startProxy() error {
	if m.proxy != nil {
		return nil
	}
	f, err := newGPUFifo(m.GPU, m.Opts.FifoSize)
	if err != nil {
		return err
	}
	m.fifo = f
	m.proxy = NewProxyService(m.GPU, f.Fifo, m.Opts.Timeout)
	m.proxy.Placement = m.Opts.Proxy
	m.proxy.OnError = func(err error, t Trigger) {
		fmt.Fprintf(os.Stderr, "mscclpp-bench: rank %d: %v\n", m.Rank, err)
		// Stop this rank's device waits now rather than after the timeout.
		atomic.CompareAndSwapUint64((*uint64)(m.errHost), 0, uint64(DevErrProxy)|uint64(t.Channel()&0xffff)<<24)
	}
	if os.Getenv("MSCCLPP_BENCH_PROXY_TRACE") != "" {
		m.proxy.Trace = func(t Trigger, took time.Duration, err error) {
			fmt.Fprintf(os.Stderr, "proxy rank %d: %v took %v err %v\n", m.Rank, t, took, err)
		}
	}
	m.proxy.Start()
	return nil
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

// DeviceError returns the first error a kernel recorded, and the proxy's, if any.
func (m *Mesh) DeviceError() error {
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
	for _, s := range m.streams {
		keep(m.GPU.DestroyStream(s))
	}
	m.streams = map[int]device.Stream{}
	if m.fifo != nil {
		keep(m.fifo.close())
		m.fifo = nil
	}
	if m.hostTok != nil {
		keep(m.hostTok.close())
		m.hostTok = nil
	}
	for _, p := range m.opened {
		keep(m.GPU.IpcClose(p))
	}
	m.opened = nil
	for _, p := range m.allocs {
		keep(m.GPU.Free(p))
	}
	m.allocs = nil
	if m.errHost != nil {
		keep(m.GPU.FreeMapped(m.errHost))
		m.errHost = nil
	}
	return first
}

// ErrorWordPtr returns the device address of the device error word.
func (m *Mesh) ErrorWordPtr() device.Ptr { return m.errDev }

// ClearDeviceError forgets a recorded device error (tests that provoke one).
func (m *Mesh) ClearDeviceError() {
	if m.errHost != nil {
		atomic.StoreUint64((*uint64)(m.errHost), 0)
	}
}
