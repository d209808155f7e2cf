package channels

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
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

// ErrNoHCA is wrapped by NewMesh's error when ModeIB was asked for and this rank has no
// usable InfiniBand HCA (no libibverbs, no device, or no active port).
var ErrNoHCA = errors.New("no usable InfiniBand HCA")

// connect exchanges endpoints, picks every pair's transport and makes this rank's
// connections. The Ethernet listener (and, with --transport ib, the HCA) is opened first,
// when the mode may use it, so that the endpoints can say what each rank offers.
func (m *Mesh) connect() error {
	info := m.GPU.Info()
	me := Endpoint{Rank: m.Rank, Transports: TransportCUDAIPC, Pid: os.Getpid(), Device: info.Ordinal,
		Hostname: m.Opts.Hostname, HostID: m.Opts.HostID, BusID: info.BusID, GPUName: info.Name}
	var nonce [8]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return err
	}
	me.Nonce = binary.LittleEndian.Uint64(nonce[:])
	want := m.Opts.Mode.wants()
	if want&TransportEthernet != 0 && m.NRanks > 1 {
		if _, err := m.openNetwork(TransportEthernet, &me); err != nil {
			return err
		}
		me.Transports |= TransportEthernet
	}
	if m.Opts.Mode == ModeIB && m.NRanks > 1 {
		if _, err := m.openNetwork(TransportIB, &me); err != nil {
			return fmt.Errorf("rank %d on %s: --transport ib: %w: %v", m.Rank, m.Opts.Hostname, ErrNoHCA, err)
		}
		me.Transports |= TransportIB
	}
	if err := m.exchangeEndpoints(me); err != nil {
		return err
	}
	if err := m.offerIB(me); err != nil {
		return err
	}
	if err := m.selectTransports(); err != nil {
		return err
	}
	return m.connectPeers(me)
}

// connectPeers makes this rank's connections, transport by transport in the order of
// their bits (CUDA IPC, IB, Ethernet), and then closes the networks that no pair of this
// rank uses (opened before the endpoints said which transports each pair would use).
func (m *Mesh) connectPeers(me Endpoint) error {
	peers := map[Transport][]int{}
	for _, p := range m.Peers() {
		t := m.pairs[m.Rank][p]
		peers[t] = append(peers[t], p)
	}
	for t := Transport(1); t != 0; t <<= 1 {
		n := m.nets[t]
		if n == nil && len(peers[t]) > 0 { // CUDA IPC: nothing to open before the exchange
			var err error
			if n, err = m.openNetwork(t, &me); err != nil {
				return fmt.Errorf("rank %d to rank %d: %w", m.Rank, peers[t][0], err)
			}
		}
		if n == nil {
			continue
		}
		conns, err := n.Connect(peers[t]) // with no peers, it finishes its set-up (a listener closes)
		for p, c := range conns {
			m.Conns[p] = c
		}
		if err != nil {
			return err
		}
		if len(peers[t]) == 0 {
			if err := m.closeNetwork(t); err != nil { // opened for a choice auto mode did not make
				return err
			}
		}
	}
	return nil
}

// offerIB, in auto mode with ranks on several hosts, looks for an HCA and tells the other
// ranks whether it found one (a job on one host never loads libibverbs).
func (m *Mesh) offerIB(me Endpoint) error {
	if m.Opts.Mode != ModeAuto || len(Hosts(m.Endpoints)) < 2 {
		return nil
	}
	have := []byte{0}
	if _, err := m.openNetwork(TransportIB, &me); err == nil {
		have[0] = 1
	}
	all, err := m.Boot.AllGather(have)
	if err != nil {
		return fmt.Errorf("exchange InfiniBand availability: %w", err)
	}
	for r, b := range all {
		if len(b) == 1 && b[0] == 1 {
			m.Endpoints[r].Transports |= TransportIB
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
			if t != TransportCUDAIPC {
				m.network = true
			}
			if i == m.Rank || j == m.Rank {
				m.offered |= t
			}
		}
	}
	return nil
}
