package channels

import (
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Port channels (device half: kernels/include/mscclpp/port_channel_device.cuh). GPU
// threads push triggers into the proxy FIFO (fifo.go); the proxy (proxy.go) hands each to
// the channel's Connection, which writes into the peer's buffer and signals the peer's
// token over the pair's transport.

// PortOption changes how PortChannels builds its channels.
type PortOption int

const (
	// HostTokens keeps the channels' semaphore tokens in host memory
	// instead of in GPU memory. For a peer on this host, a signal with no copy in flight
	// is then a CPU store by the proxy rather than a stream write: about 3 µs one way
	// instead of 7 on 2×H200; for a network peer, the receiving side stores the token with
	// the CPU. Every wait polls host memory over PCIe, though: right for a few waiting
	// threads (a ping-pong), wrong for kernels whose every block polls (a collective
	// slowed 18×).
	HostTokens PortOption = iota + 1
	// NetworkHostTokens is HostTokens for the peers reached over a network transport
	// (those that do not map the peer's memory) only; peers whose memory is mapped keep their tokens in GPU memory. The
	// receiving side then stores a network peer's signal with the CPU instead of a stream
	// write (about 7 µs less per signal on 2×H200), while collectives whose every block
	// polls keep polling GPU memory inside a host. Where no pair of the job uses a network,
	// it changes nothing.
	NetworkHostTokens
)

// PortChannels makes one port channel per peer (in Peers order): the proxy copies from
// local[0, localSize) to the peer's copy of remote and signals a host-to-device semaphore.
func (m *Mesh) PortChannels(remote *Buffer, local device.Ptr, localSize uint64, opts ...PortOption) ([]PortChannelHandle, error) {
	return m.PortChannelsTo(m.Peers(), remote, local, localSize, opts...)
}

// PortChannelsTo is PortChannels to the given peers only, in the order given (e.g. the
// ranks of equal local index on the other hosts). Every rank calls it at the same point of
// the set-up, with peers of its own.
func (m *Mesh) PortChannelsTo(peers []int, remote *Buffer, local device.Ptr, localSize uint64, opts ...PortOption) ([]PortChannelHandle, error) {
	if err := m.checkPeers(peers); err != nil {
		return nil, err
	}
	if err := m.startProxy(); err != nil {
		return nil, err
	}
	useHost := slices.Contains(opts, HostTokens)
	netHost := m.network && slices.Contains(opts, NetworkHostTokens)
	if (useHost || netHost) && m.hostTok == nil {
		if err := m.setupHostTokens(); err != nil {
			return nil, fmt.Errorf("mesh: %w", err)
		}
	}
	id, err := m.nextSemaphore()
	if err != nil {
		return nil, err
	}
	var out []PortChannelHandle
	for _, p := range peers {
		slot := m.tokenOffset(m.Rank, id)
		conn := m.Conns[p]
		t := conn.Transport()
		pc := &ProxyChannel{Peer: p, Conn: conn}
		if pc.Src, err = m.localRegion(local, localSize, t); err != nil {
			return nil, err
		}
		if pc.Dst, err = m.remoteRegion(p, remote.Mems[p], remote.Ptrs[p]); err != nil {
			return nil, err
		}
		if pc.Token, err = m.remoteRegion(p, m.tokenMems[p], m.peerTokens[p]); err != nil {
			return nil, err
		}
		inbound := m.token(m.tokens, p, id)
		if useHost || (netHost && !t.Maps()) {
			if t.Maps() {
				pc.Token = Region{Base: m.hostTok.devs[p], Host: unsafe.Pointer(m.hostTok.word(p, m.Rank*m.Opts.MaxSemaphores+id))}
			} else if pc.Token, err = m.remoteRegion(p, m.hostTokMems[p], 0); err != nil {
				return nil, err
			}
			inbound = m.token(m.hostTok.devs[m.Rank], p, id)
		}
		pc.Token.Off, pc.Token.Size = slot, 8
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

// setupHostTokens maps the token files of the ranks on this host and, when some pair of
// the job talks over the network, registers this rank's own file so that network peers
// can name it (the receiving side stores into it).
func (m *Mesh) setupHostTokens() error {
	bytes := uint64(m.NRanks*m.Opts.MaxSemaphores) * 8
	mapped := func(r int) bool { return r == m.Rank || m.maps(r) }
	t, err := newHostTokens(m.GPU, m.Boot, bytes, mapped)
	if err != nil {
		return err
	}
	m.hostTok = t
	if !m.network {
		return nil
	}
	mine, err := m.register(LocalMemory{Ptr: t.devs[m.Rank], Size: bytes, Host: unsafe.Pointer(&t.maps[m.Rank][0])})
	if err != nil {
		return fmt.Errorf("host tokens: %w", err)
	}
	if m.hostTokMems, err = m.exchange(mine); err != nil {
		return fmt.Errorf("host tokens: %w", err)
	}
	return nil
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
	if m.Opts.ProxyTrace {
		m.trace = newProxyTrace()
		m.proxy.Trace = m.trace.add
	}
	m.proxy.Start()
	return nil
}
