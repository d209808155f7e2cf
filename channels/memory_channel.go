package channels

import (
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// MemoryChannels makes one memory channel per peer (in Peers order) from local memory at
// local to the peer's copy of remote, each with a new device-to-device semaphore. GPU
// threads copy into the peer's buffer and signal its token directly
// (kernels/include/mscclpp/memory_channel_device.cuh), so every peer must be connected
// by CUDA IPC: on one host, with --transport auto or nvlink.
func (m *Mesh) MemoryChannels(remote *Buffer, local device.Ptr) ([]MemoryChannelHandle, error) {
	return m.MemoryChannelsTo(m.Peers(), remote, local)
}

// MemoryChannelsTo is MemoryChannels to the given peers only, in the order given (e.g.
// the ranks of this host, for an algorithm that reaches other hosts over port channels).
// Every rank calls it at the same point of the set-up, with peers of its own.
func (m *Mesh) MemoryChannelsTo(peers []int, remote *Buffer, local device.Ptr) ([]MemoryChannelHandle, error) {
	if err := m.checkPeers(peers); err != nil {
		return nil, err
	}
	for _, p := range peers {
		if t := m.Conns[p].Transport(); !t.Maps() {
			return nil, fmt.Errorf("memory channels need every peer connected by %s, but rank %d reaches rank %d over %v (hosts %s and %s); use port channels",
				mappingTitles(), m.Rank, p, t, m.Opts.HostID, m.Endpoints[p].HostID)
		}
	}
	for _, p := range peers {
		if remote.Ptrs[p] == 0 {
			return nil, fmt.Errorf("mesh: rank %d: memory channel to rank %d: %w", m.Rank, p, unmapped(p, remote.Mems[p], m.Conns[p].Transport()))
		}
	}
	id, err := m.nextSemaphore()
	if err != nil {
		return nil, err
	}
	var out []MemoryChannelHandle
	for _, p := range peers {
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
