package channels

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
)

// Bootstrap is the control plane the mesh exchanges set-up data over
// (bootstrap.TCPBootstrap implements it).
type Bootstrap interface {
	Rank() int
	NRanks() int
	Send(peer, tag int, data []byte) error
	Recv(peer, tag int) ([]byte, error)
	AllGather(mine []byte) ([][]byte, error)
	Barrier() error
}

// connect exchanges endpoints, picks every pair's transport and makes this rank's
// connections. The transports offered always (and the one --transport names) are opened
// first, so that the endpoints can say what each rank offers and hold their sections;
// those offered between hosts are probed after the exchange (probe).
func (m *Mesh) connect() error {
	info := m.GPU.Info()
	me := Endpoint{Rank: m.Rank, Pid: os.Getpid(), Device: info.Ordinal,
		Hostname: m.Opts.Hostname, HostID: m.Opts.HostID, BusID: info.BusID, GPUName: info.Name}
	var nonce [8]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return err
	}
	me.Nonce = binary.LittleEndian.Uint64(nonce[:])
	if m.Opts.Mode != ModeAuto {
		if _, ok := lookup(Transport(m.Opts.Mode)); !ok {
			return fmt.Errorf("transport %v is not built into this program", Transport(m.Opts.Mode))
		}
	}
	for _, t := range Registered() {
		forced := Transport(m.Opts.Mode) == t.Transport
		switch {
		case t.Offer == OfferOnUse:
			me.Transports |= t.Transport
			continue
		case m.NRanks < 2 || !m.Opts.Mode.mayUse(t.Transport):
			continue
		case t.Offer == OfferBetweenHosts && !forced:
			continue // probed after the exchange
		}
		n, err := m.openNetwork(t.Transport, &me)
		if err != nil {
			if !forced {
				return err
			}
			why := t.Unavailable
			if why == nil {
				why = ErrUnavailable
			}
			return fmt.Errorf("rank %d on %s: --transport %s: %w: %v", m.Rank, m.Opts.Hostname, t.Flag, why, err)
		}
		if f, ok := n.(EndpointFiller); ok {
			me.SetSection(t.Transport, f.EndpointSection())
		}
		me.Transports |= t.Transport
	}
	if err := m.exchangeEndpoints(me); err != nil {
		return err
	}
	if err := m.probe(me); err != nil {
		return err
	}
	if err := m.selectTransports(); err != nil {
		return err
	}
	return m.connectPeers(me)
}

// connectPeers makes this rank's connections. First, in one pass over the peers in
// ascending order, those of the transports that connect one peer at a time
// (PeerConnector), opening a transport opened on use at its first peer; then it closes
// such a network that no pair of this rank uses (probed, or opened for a choice auto mode
// did not make). Last, every other network connects all its peers at once, in the order
// of the transports' bits, with no peers when none uses it (it finishes its set-up: a
// listener closes); it stays open until Close.
func (m *Mesh) connectPeers(me Endpoint) error {
	byTransport := map[Transport][]int{}
	for _, p := range m.Peers() {
		t := m.pairs[m.Rank][p]
		if m.nets[t] == nil {
			if _, err := m.openNetwork(t, &me); err != nil {
				return fmt.Errorf("rank %d to rank %d: %w", m.Rank, p, err)
			}
		}
		if pc, ok := m.nets[t].(PeerConnector); ok {
			c, err := pc.ConnectPeer(p)
			if err != nil {
				return err
			}
			m.Conns[p] = c
			continue
		}
		byTransport[t] = append(byTransport[t], p)
	}
	for _, info := range Registered() {
		if _, ok := m.nets[info.Transport].(PeerConnector); ok && !m.uses(info.Transport) {
			if err := m.closeNetwork(info.Transport); err != nil {
				return err
			}
		}
	}
	for _, info := range Registered() {
		n := m.nets[info.Transport]
		if _, ok := n.(PeerConnector); n == nil || ok {
			continue
		}
		conns, err := n.Connect(byTransport[info.Transport])
		for p, c := range conns {
			m.Conns[p] = c
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// probe, in auto mode with ranks on several hosts, opens the transports offered between
// hosts (OfferBetweenHosts) and tells the other ranks which opened (a job on one host
// never loads, e.g., an HCA's library).
func (m *Mesh) probe(me Endpoint) error {
	if m.Opts.Mode != ModeAuto || len(Hosts(m.Endpoints)) < 2 {
		return nil
	}
	for _, t := range Registered() {
		if t.Offer != OfferBetweenHosts {
			continue
		}
		have := []byte{0}
		if _, err := m.openNetwork(t.Transport, &me); err == nil {
			have[0] = 1
		}
		all, err := m.Boot.AllGather(have)
		if err != nil {
			return fmt.Errorf("exchange %s availability: %w", t.Transport.Title(), err)
		}
		for r, b := range all {
			if len(b) == 1 && b[0] == 1 {
				m.Endpoints[r].Transports |= t.Transport
			}
		}
	}
	return nil
}

// exchangeEndpoints allgathers every rank's endpoint and checks them.
func (m *Mesh) exchangeEndpoints(me Endpoint) error {
	blob, err := me.MarshalBinary()
	if err != nil {
		return err
	}
	all, err := m.Boot.AllGather(blob)
	if err != nil {
		return fmt.Errorf("exchange endpoints: %w", err)
	}
	m.Endpoints = make([]Endpoint, m.NRanks)
	for r, b := range all {
		if err := m.Endpoints[r].UnmarshalBinary(b); err != nil {
			return fmt.Errorf("endpoint of rank %d: %w", r, err)
		}
		if m.Endpoints[r].Rank != r {
			return fmt.Errorf("endpoint in slot %d claims rank %d", r, m.Endpoints[r].Rank)
		}
	}
	return nil
}

// selectTransports fills the transport of every pair of the job (each rank computes the
// whole table from the endpoints) and what this rank's connections use.
func (m *Mesh) selectTransports() error {
	m.pairs = make([][]Transport, m.NRanks)
	for i := range m.pairs {
		m.pairs[i] = make([]Transport, m.NRanks)
	}
	for i := 0; i < m.NRanks; i++ {
		for j := i + 1; j < m.NRanks; j++ {
			t, err := SelectTransport(m.Opts.Mode, m.Endpoints[i], m.Endpoints[j])
			if err != nil {
				return err
			}
			m.pairs[i][j], m.pairs[j][i] = t, t
			if !t.Maps() {
				m.network = true
			}
			if i == m.Rank || j == m.Rank {
				m.offered |= t
			}
		}
	}
	return nil
}
