package channels

import (
	"fmt"
	"sync"

	"github.com/mscclpp-bench/mscclpp-bench/internal/rdma"
)

// Network is one transport as this rank opened it for a mesh: what it set up before the
// endpoints were exchanged (a listener, an HCA), from which it connects the peers that
// SelectTransport paired over it.
type Network interface {
	// Connect makes this rank's connections to peers (ascending; possibly none). On an
	// error it still returns the connections it made, for the mesh to close.
	Connect(peers []int) (map[int]Connection, error)
	// Close releases what the network holds; the mesh closes its connections first.
	Close() error
}

// MemoryRegistrar is a Network whose hardware must know the memory it reaches
// (InfiniBand): the mesh calls it for each registration while a connection uses the
// transport, and closes the region it returns when the mesh closes.
type MemoryRegistrar interface {
	RegisterMemory(mem LocalMemory) (rdma.MemoryRegion, error)
}

// OpenFunc opens transport t on this rank for mesh m. The mesh calls it before the
// endpoints are exchanged for the transports its mode may use (it may fill me's fields
// of the transport, e.g. Ethernet's address), and for CUDA IPC once pairs are chosen.
type OpenFunc func(m *Mesh, me *Endpoint) (Network, error)

var (
	transportsMu sync.Mutex
	transports   = map[Transport]OpenFunc{}
)

// RegisterTransport makes transport t (one bit) available to every mesh of the program:
// a transport's package calls it from its init, and a program links the transports it
// offers by importing their packages (channels/transports imports them all). It
// panics on a second registration of t, a program error.
func RegisterTransport(t Transport, open OpenFunc) {
	transportsMu.Lock()
	defer transportsMu.Unlock()
	if t == 0 || t&(t-1) != 0 || t&^allTransports != 0 {
		panic(fmt.Sprintf("channels: RegisterTransport(%v): not one known transport", t))
	}
	if transports[t] != nil {
		panic(fmt.Sprintf("channels: transport %v registered twice", t))
	}
	transports[t] = open
}

// openNetwork opens transport t for this mesh and keeps it, for Close.
func (m *Mesh) openNetwork(t Transport, me *Endpoint) (Network, error) {
	transportsMu.Lock()
	open := transports[t]
	transportsMu.Unlock()
	if open == nil {
		return nil, fmt.Errorf("transport %v is not built into this program", t)
	}
	n, err := open(m, me)
	if err != nil {
		return nil, err
	}
	m.nets[t] = n
	return n, nil
}

// closeNetwork closes the network of transport t, if open, and forgets it.
func (m *Mesh) closeNetwork(t Transport) error {
	n := m.nets[t]
	if n == nil {
		return nil
	}
	delete(m.nets, t)
	return n.Close()
}

// registerNetwork registers mem with the network of transport t.
func (m *Mesh) registerNetwork(t Transport, mem LocalMemory) (rdma.MemoryRegion, error) {
	r, ok := m.nets[t].(MemoryRegistrar)
	if !ok {
		return nil, fmt.Errorf("transport %v registers no memory here", t)
	}
	return r.RegisterMemory(mem)
}

// ConnectionFailed records the first error of a connection's own goroutines (a lost
// peer, a bad message): DeviceError reports it, and this rank's device waits stop, as on
// a proxy error. Network transports call it.
func (m *Mesh) ConnectionFailed(err error) { m.connFailed(err) }

// Memories returns this rank's registrations, for a network transport's receivers.
func (m *Mesh) Memories() Memories { return &m.reg }
