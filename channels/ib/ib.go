// Package ib is the InfiniBand transport: one reliable-connected queue pair per pair of
// ranks, RDMA writes for puts, an atomic add (or an RDMA write of the value) for signals,
// completion polling for flushes, over internal/rdma's verbs. It registers itself with
// channels in its init.
package ib

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/rdma"
	"golang.org/x/sys/unix"
)

// ibDepth is the send queue depth of each queue pair.
const ibDepth = 256

// ibMaxWrite is the largest RDMA write one work request carries (a variable for tests).
var ibMaxWrite uint64 = 1 << 30

// Transport is the InfiniBand transport's bit.
const Transport channels.Transport = 2

// Mode connects every pair over InfiniBand (--transport ib): every rank needs an HCA.
const Mode = channels.Mode(Transport)

// ErrNoHCA is wrapped by channels.NewMesh's error when Mode was asked for and this rank has
// no usable InfiniBand HCA (no libibverbs, no device, or no active port).
var ErrNoHCA = errors.New("no usable InfiniBand HCA")

func init() {
	channels.RegisterTransport(channels.TransportInfo{
		Transport: Transport, Name: "ib", Title: "InfiniBand", Flag: "ib",
		Priority:    200, // above Ethernet: where both ranks of a pair have an HCA
		Offer:       channels.OfferBetweenHosts,
		Lacking:     "has no usable InfiniBand HCA",
		Unavailable: ErrNoHCA,
		Open:        openIBNetwork,
	})
}

// Options configure the InfiniBand transport; a program sets them with
// channels.MeshOptions.SetTransportOptions(ib.Transport, opts).
type Options struct {
	// Verbs is the InfiniBand library (internal/ibverbs), or nil for none: auto mode then
	// connects hosts over another transport, and Mode fails with ErrNoHCA.
	Verbs rdma.Verbs
	// Device names the HCA to use ("" = the first with an active port).
	Device string
	// NoAtomics makes signals plain RDMA writes of the token value even where both HCAs do
	// atomics (the worker sets it from MSCCLPP_BENCH_IB_ATOMICS=0).
	NoAtomics bool
}

// OptionsOf returns the InfiniBand options in o (the zero Options when it has none).
func OptionsOf(o channels.MeshOptions) Options {
	v, _ := o.TransportOptions(Transport).(Options)
	return v
}

// tagIBQueuePair is the bootstrap tag of the queue pair information two ranks exchange.
const tagIBQueuePair = 0x4d420001

// ibNetwork is the InfiniBand transport as a mesh sees it: the HCA, and the mesh whose
// bootstrap and GPU it connects and registers with.
type ibNetwork struct {
	n *ibNet
	m *channels.Mesh
}

// openIBNetwork is the InfiniBand transport's OpenFunc: it opens the HCA that the mesh's
// options name (or the first with an active port).
func openIBNetwork(m *channels.Mesh, _ *channels.Endpoint) (channels.Network, error) {
	if v := m.Opts.TransportOptions(Transport); v != nil {
		if _, ok := v.(Options); !ok {
			return nil, fmt.Errorf("ib: options of type %T, want ib.Options", v)
		}
	}
	o := OptionsOf(m.Opts)
	n, err := openIB(o.Verbs, o.Device, o.NoAtomics)
	if err != nil {
		return nil, err
	}
	return &ibNetwork{n: n, m: m}, nil
}

// ConnectPeer implements channels.PeerConnector: a queue pair, set up over the bootstrap.
func (w *ibNetwork) ConnectPeer(p int) (channels.Connection, error) {
	c, err := w.n.connect(w.m.Boot, w.m.Rank, p, w.m.Opts.Timeout)
	if err != nil {
		return nil, fmt.Errorf("connect rank %d to rank %d over InfiniBand: %w", w.m.Rank, p, err)
	}
	return c, nil
}

// Connect implements Network (the mesh connects peer by peer: ConnectPeer).
func (w *ibNetwork) Connect(peers []int) (map[int]channels.Connection, error) {
	conns := map[int]channels.Connection{}
	for _, p := range peers {
		c, err := w.ConnectPeer(p)
		if err != nil {
			return conns, err
		}
		conns[p] = c
	}
	return conns, nil
}

// RegisterMemory implements channels.MemoryRegistrar: the section peers get is the
// memory's address as the HCA reaches it and its remote key.
func (w *ibNetwork) RegisterMemory(mem channels.LocalMemory) (channels.Registration, error) {
	mr, err := w.n.register(w.m.GPU, mem)
	if err != nil {
		return nil, err
	}
	return registration{mr: mr, addr: mem.Addr()}, nil
}

// RemoteRegion implements channels.MemoryRegistrar.
func (w *ibNetwork) RemoteRegion(section []byte, size uint64) (channels.Region, error) {
	if len(section) != ibSectionSize {
		return channels.Region{}, fmt.Errorf("InfiniBand section of %d bytes, want %d", len(section), ibSectionSize)
	}
	addr := binary.LittleEndian.Uint64(section)
	if addr > addr+size {
		return channels.Region{}, fmt.Errorf("InfiniBand address 0x%x + size %d overflows", addr, size)
	}
	return channels.Region{Base: device.Ptr(addr), Key: binary.LittleEndian.Uint32(section[8:])}, nil
}

// ibSectionSize is the length of a registration's section: addr u64, rkey u32.
const ibSectionSize = 8 + 4

// registration is memory registered with the HCA.
type registration struct {
	mr   rdma.MemoryRegion
	addr uint64 // where the HCA reaches the memory
}

// Section implements channels.Registration.
func (r registration) Section() []byte {
	return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint64(nil, r.addr), r.mr.RKey())
}

// Key implements channels.Registration: the local key.
func (r registration) Key() uint32 { return r.mr.LKey() }

// Close implements channels.Registration.
func (r registration) Close() error { return r.mr.Close() }

// Close implements Network: it closes the HCA.
func (w *ibNetwork) Close() error { return w.n.close() }

// ibNet is this rank's HCA.
type ibNet struct {
	dev       rdma.Device
	port      rdma.Port
	noAtomics bool // signal by RDMA writes even where both HCAs do atomics
}

func openIB(v rdma.Verbs, name string, noAtomics bool) (*ibNet, error) {
	if v == nil {
		return nil, errors.New("this build has no InfiniBand layer")
	}
	dev, err := v.Open(name)
	if err != nil {
		return nil, err
	}
	return &ibNet{dev: dev, port: dev.Port(), noAtomics: noAtomics}, nil
}

func (n *ibNet) close() error { return n.dev.Close() }

// register registers local memory with the HCA: host memory directly, GPU memory as a
// dma-buf where the GPU exports one, else by address (peer memory).
func (n *ibNet) register(g device.GPU, l channels.LocalMemory) (rdma.MemoryRegion, error) {
	if l.Host == nil {
		if x, ok := g.(device.DMABufExporter); ok {
			fd, off, err := x.ExportDMABuf(l.Ptr, l.Size)
			if err == nil {
				mr, err := n.dev.Register(uint64(l.Ptr), l.Size, fd, off)
				unix.Close(fd)
				if err == nil {
					return mr, nil
				}
			}
		}
	}
	return n.dev.Register(l.Addr(), l.Size, -1, 0)
}

// ibInfo is what two ranks exchange to connect their queue pairs.
type ibInfo struct {
	port rdma.Port
	qpn  uint32
	psn  uint32
}

const ibInfoSize = 2 + 16 + 1 + 1 + 4 + 4

func (i ibInfo) encode() []byte {
	b := binary.LittleEndian.AppendUint16(nil, i.port.LID)
	b = append(b, i.port.GID[:]...)
	atomics := byte(0)
	if i.port.Atomics {
		atomics = 1
	}
	b = append(b, i.port.MTU, atomics)
	b = binary.LittleEndian.AppendUint32(b, i.qpn)
	return binary.LittleEndian.AppendUint32(b, i.psn)
}

func decodeIBInfo(b []byte) (ibInfo, error) {
	if len(b) != ibInfoSize {
		return ibInfo{}, fmt.Errorf("queue pair info of %d bytes, want %d", len(b), ibInfoSize)
	}
	var i ibInfo
	i.port.LID = binary.LittleEndian.Uint16(b)
	copy(i.port.GID[:], b[2:18])
	i.port.MTU, i.port.Atomics = b[18], b[19] == 1
	i.qpn = binary.LittleEndian.Uint32(b[20:])
	i.psn = binary.LittleEndian.Uint32(b[24:])
	return i, nil
}

// connect makes a queue pair to peer and connects it to the peer's, exchanging their
// addresses over the bootstrap.
func (n *ibNet) connect(boot channels.Bootstrap, rank, peer int, timeout time.Duration) (_ *ibConn, err error) {
	qp, err := n.dev.NewQueuePair(ibDepth)
	if err != nil {
		return nil, err
	}
	c := &ibConn{peer: peer, qp: qp, timeout: timeout, comps: make([]rdma.Completion, 32)}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	psn := uint32(rank*7919+peer) & 0xffffff
	if err := boot.Send(peer, tagIBQueuePair, ibInfo{port: n.port, qpn: qp.Number(), psn: psn}.encode()); err != nil {
		return nil, fmt.Errorf("send queue pair info: %w", err)
	}
	blob, err := boot.Recv(peer, tagIBQueuePair)
	if err != nil {
		return nil, fmt.Errorf("receive queue pair info: %w", err)
	}
	remote, err := decodeIBInfo(blob)
	if err != nil {
		return nil, err
	}
	if err := qp.Connect(n.port, remote.port, remote.qpn, psn, remote.psn); err != nil {
		return nil, err
	}
	c.atomics = n.port.Atomics && remote.port.Atomics && !n.noAtomics
	if c.vals, c.valMR, err = n.dev.HostBuffer(8 * ibDepth); err != nil {
		return nil, fmt.Errorf("signal buffer: %w", err)
	}
	return c, nil
}
