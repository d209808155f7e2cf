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

// Bootstrap tags of the mesh's point-to-point set-up messages.
const tagIBQueuePair = 0x4d420001

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
		eth, err := listenEthernet(m.Boot, m.Rank, me.Nonce, m.Opts.Ethernet, m.Opts.Timeout)
		if err != nil {
			return err
		}
		m.eth = eth
		me.Transports |= TransportEthernet
		me.EthAddr, me.Sockets, me.Chunk = eth.addr(), eth.opts.Sockets, eth.opts.Chunk
	}
	if m.Opts.Mode == ModeIB && m.NRanks > 1 {
		ib, err := openIB(m.Opts.Verbs, m.Opts.IBDevice, m.Opts.IBNoAtomics)
		if err != nil {
			return fmt.Errorf("rank %d on %s: --transport ib: %w: %v", m.Rank, m.Opts.Hostname, ErrNoHCA, err)
		}
		m.ib = ib
		me.Transports |= TransportIB
	}
	if err := m.exchangeEndpoints(me); err != nil {
		return err
	}
	if err := m.offerIB(); err != nil {
		return err
	}
	if err := m.selectTransports(); err != nil {
		return err
	}
	var ethPeers []int
	for _, p := range m.Peers() {
		switch t := m.pairs[m.Rank][p]; t {
		case TransportCUDAIPC:
			c, err := newCUDAIPCConn(m.GPU, me, m.Endpoints[p], m.Opts.Timeout)
			if err != nil {
				return err
			}
			m.Conns[p] = c
		case TransportEthernet:
			ethPeers = append(ethPeers, p)
		case TransportIB:
			c, err := m.ib.connect(m.Boot, m.Rank, p, m.Opts.Timeout)
			if err != nil {
				return fmt.Errorf("connect rank %d to rank %d over InfiniBand: %w", m.Rank, p, err)
			}
			m.Conns[p] = c
		default:
			return fmt.Errorf("rank %d to rank %d: no connection for transport %v", m.Rank, p, t)
		}
	}
	if m.ib != nil && !m.uses(TransportIB) {
		err := m.ib.close() // opened for a choice auto mode did not make
		m.ib = nil
		if err != nil {
			return err
		}
	}
	if m.eth != nil {
		conns, err := m.eth.connectPeers(me, m.Endpoints, ethPeers, m.GPU, &m.reg, m.connFailed)
		for p, c := range conns {
			m.Conns[p] = c
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// offerIB, in auto mode with ranks on several hosts, looks for an HCA and tells the other
// ranks whether it found one (a job on one host never loads libibverbs).
func (m *Mesh) offerIB() error {
	if m.Opts.Mode != ModeAuto || len(Hosts(m.Endpoints)) < 2 {
		return nil
	}
	have := []byte{0}
	if ib, err := openIB(m.Opts.Verbs, m.Opts.IBDevice, m.Opts.IBNoAtomics); err == nil {
		m.ib, have[0] = ib, 1
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
