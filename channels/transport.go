package channels

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// A transport is a package of its own beside this one (channels/cudaipc, channels/ethernet,
// channels/ib): its init calls RegisterTransport with a TransportInfo, and everything the
// mesh must decide about it (which pairs it may connect, when a rank opens it, what it puts
// in the endpoint, how it ranks against the others in auto mode, what a peer needs to reach
// memory registered with it) comes from that record and from the Network it opens. The
// core names no transport.

// Transport says how two ranks move data. The values are bits, so that a set of
// transports (what a rank offers, what a registered memory can be reached by) is one value.
// Each transport's package declares its bit.
type Transport uint16

// Offer says when a rank opens a transport, and so when it offers it to the others.
type Offer int

// Offers.
const (
	// OfferOnUse: every rank offers it and opens it only once some pair of its own uses
	// it (nothing to set up before the endpoints are exchanged).
	OfferOnUse Offer = iota
	// OfferAlways: a rank of a job of several ranks opens it before the endpoints are
	// exchanged whenever the mode may choose it (a listener whose address the endpoint
	// carries); failing to open it fails the mesh.
	OfferAlways
	// OfferBetweenHosts: in auto mode a rank opens it after the endpoints are exchanged,
	// and only when the ranks span several hosts, and the ranks tell each other whether
	// it opened (a failure just means not offered: no such hardware here). When the mode
	// asks for it by name it is opened before the exchange, and failing fails the mesh.
	OfferBetweenHosts
)

// TransportInfo is a transport's registration record.
type TransportInfo struct {
	Transport Transport // its bit
	Name      string    // how String names it, e.g. in "within=... between=..."
	Title     string    // how messages name it, e.g. "InfiniBand" ("" = Name)
	// Flag is its --transport value (ParseMode), and Aliases more values that mean it.
	Flag    string
	Aliases []string
	// Priority ranks it in auto mode: of the transports that both ranks of a pair offer
	// and that may connect the pair, the one of highest priority connects it (equal
	// priorities are refused at registration).
	Priority int
	// Maps: the ranks it connects map each other's GPU memory into their processes
	// (device.GPU's IPC handles), so memory channels and the semaphore tokens reach them
	// directly. Such a transport connects ranks of one host only.
	Maps bool
	// Offer says when a rank opens it.
	Offer Offer
	// Lacking completes "rank N ..." when --transport asks for it and a rank does not
	// offer it, e.g. "has no usable InfiniBand HCA".
	Lacking string
	// Unavailable, when not nil, is wrapped by NewMesh's error when --transport asks for
	// the transport and this rank cannot open it (a caller tests it with errors.Is).
	Unavailable error
	// Open opens it on this rank for a mesh.
	Open OpenFunc
}

// Network is one transport as this rank opened it for a mesh: what it set up before its
// pairs were known (a listener, an HCA), from which it connects the peers that
// SelectTransport paired over it.
//
// The mesh connects a network that is also a PeerConnector one peer at a time, and
// otherwise all its peers in one Connect call (see Mesh.connectPeers for the order).
type Network interface {
	// Connect makes this rank's connections to peers (ascending; possibly none, when it
	// finishes its set-up, e.g. a listener closes). On an error it still returns the
	// connections it made, for the mesh to close.
	Connect(peers []int) (map[int]Connection, error)
	// Close releases what the network holds; the mesh closes its connections first.
	Close() error
}

// PeerConnector is a Network that connects one peer at a time: the mesh connects the
// peers of every such network in one pass in ascending peer order, so that the two ranks
// of a pair make their bootstrap exchanges in the same order whatever the transports of
// their other pairs.
type PeerConnector interface {
	ConnectPeer(peer int) (Connection, error)
}

// EndpointFiller is a Network that adds bytes of its own to this rank's endpoint (an
// address, sizes); its connections read the peers' bytes with Endpoint.Section. Only a
// network opened before the endpoints are exchanged can fill.
type EndpointFiller interface {
	EndpointSection() []byte
}

// MemoryRegistrar is a Network whose hardware must know the memory it reaches: the mesh
// registers every registration with it while a connection of the mesh uses the
// transport, keeps the Registration with the local memory, and sends its Section to the
// other ranks inside RegisteredMemory. A MemoryRegistrar closes after the registrations
// made with it.
type MemoryRegistrar interface {
	RegisterMemory(mem LocalMemory) (Registration, error)
	// RemoteRegion returns how this rank's connections address a peer's registration of
	// size bytes, from the section the peer's RegisterMemory made (Base and Key; the
	// caller fills Off, Size and ID). A section that cannot address size bytes is an error.
	RemoteRegion(section []byte, size uint64) (Region, error)
}

// Registration is a MemoryRegistrar's hold on local memory.
type Registration interface {
	// Section is what a peer needs to reach the memory (at most 65535 bytes).
	Section() []byte
	// Key is what a connection's source region carries (Region.Key).
	Key() uint32
	// Close releases the registration.
	Close() error
}

// OpenFunc opens a transport on this rank for mesh m (me is this rank's endpoint as far
// as it is known: rank, host, nonce).
type OpenFunc func(m *Mesh, me *Endpoint) (Network, error)

var (
	transportsMu sync.Mutex
	transports   = map[Transport]TransportInfo{}
)

// RegisterTransport makes a transport available to every mesh of the program: a
// transport's package calls it from its init, and a program links the transports it
// offers by importing their packages (channels/transports imports them all). It panics on
// a malformed record, or one that clashes with a registered transport (its bit, a name,
// its priority): a program error.
func RegisterTransport(info TransportInfo) {
	transportsMu.Lock()
	defer transportsMu.Unlock()
	t := info.Transport
	if t == 0 || t&(t-1) != 0 || info.Name == "" || info.Flag == "" || info.Open == nil || info.Offer < OfferOnUse || info.Offer > OfferBetweenHosts {
		panic(fmt.Sprintf("channels: RegisterTransport(%+v): a record needs one bit, a name, a flag, a known Offer and Open", info))
	}
	for _, o := range transports {
		clash := o.Transport == t || o.Priority == info.Priority || o.Name == info.Name
		for _, n := range append([]string{info.Flag}, info.Aliases...) {
			clash = clash || o.Flag == n || slices.Contains(o.Aliases, n)
		}
		if clash {
			panic(fmt.Sprintf("channels: transport %q clashes with %q (bit, name, flag or priority)", info.Name, o.Name))
		}
	}
	if info.Flag == "auto" || slices.Contains(info.Aliases, "auto") {
		panic(fmt.Sprintf("channels: transport %q takes the flag value auto", info.Name))
	}
	transports[t] = info
}

// Registered returns the records of the transports built into this program, in the order
// of their bits.
func Registered() []TransportInfo {
	transportsMu.Lock()
	defer transportsMu.Unlock()
	out := make([]TransportInfo, 0, len(transports))
	for _, info := range transports {
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b TransportInfo) int { return int(a.Transport) - int(b.Transport) })
	return out
}

// lookup returns the record of transport t.
func lookup(t Transport) (TransportInfo, bool) {
	transportsMu.Lock()
	defer transportsMu.Unlock()
	info, ok := transports[t]
	return info, ok
}

// registeredSet is the set of every registered transport.
func registeredSet() Transport {
	var all Transport
	for _, info := range Registered() {
		all |= info.Transport
	}
	return all
}

// String names the transport, or the set of transports joined by "+".
func (t Transport) String() string {
	var names []string
	for _, info := range Registered() {
		if t&info.Transport != 0 {
			names = append(names, info.Name)
			t &^= info.Transport
		}
	}
	if t != 0 || len(names) == 0 {
		names = append(names, fmt.Sprintf("transport(%d)", uint16(t)))
	}
	return strings.Join(names, "+")
}

// Title returns how messages name transport t (TransportInfo.Title).
func (t Transport) Title() string {
	info, ok := lookup(t)
	switch {
	case !ok:
		return t.String()
	case info.Title != "":
		return info.Title
	}
	return info.Name
}

// mappingTitles names the transports that map memory, joined by "or".
func mappingTitles() string {
	var names []string
	for _, info := range Registered() {
		if info.Maps {
			names = append(names, info.Transport.Title())
		}
	}
	if len(names) == 0 {
		return "a transport that maps memory (none is built in)"
	}
	return orList(names)
}

// Maps reports whether transport t maps the memory of the ranks it connects (TransportInfo.Maps).
func (t Transport) Maps() bool {
	info, ok := lookup(t)
	return ok && info.Maps
}

// ErrUnavailable is wrapped by NewMesh's error when --transport names a transport that
// this rank cannot open; the transport's own TransportInfo.Unavailable is wrapped beside it.
var ErrUnavailable = errors.New("transport unavailable")

// openNetwork opens transport t for this mesh and keeps it, for Close.
func (m *Mesh) openNetwork(t Transport, me *Endpoint) (Network, error) {
	info, ok := lookup(t)
	if !ok {
		return nil, fmt.Errorf("transport %v is not built into this program", t)
	}
	n, err := info.Open(m, me)
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

// ConnectionFailed records the first error of a connection's own goroutines (a lost
// peer, a bad message): DeviceError reports it, and this rank's device waits stop, as on
// a proxy error. Network transports call it.
func (m *Mesh) ConnectionFailed(err error) { m.connFailed(err) }

// Memories returns this rank's registrations, for a network transport's receivers.
func (m *Mesh) Memories() Memories { return &m.reg }
