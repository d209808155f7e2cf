package channels

import (
	"fmt"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// ShareHost allocates bytes of host-resident memory (pinned host memory mapped into this
// rank's GPU, zeroed), registers it and exchanges it with every rank, as Share does for
// GPU memory. Kernels address it at Ptrs[own rank]. Over Ethernet no CUDA call moves its
// bytes: a write from it is sent from host memory, a write into it is received straight
// into it (channels/ethernet); over InfiniBand the HCA reads and writes it in host
// memory. CUDA IPC cannot map host memory of another process, so the peers this rank
// reaches by CUDA IPC get no mapping (their Ptrs entry is 0) and a channel into their copy
// is refused (PortChannelsTo, MemoryChannelsTo): host-resident memory serves the network
// peers only, and a job with none refuses it (on every rank). Every rank calls it with the
// same size; Close frees it.
func (m *Mesh) ShareHost(bytes uint64) (*Buffer, error) {
	// Every rank refuses alike (m.network is the job's), so none waits in the exchange for
	// a rank that refused; a failure on one rank only (the allocation, a registration)
	// leaves the others waiting in the exchange until the bootstrap's timeout, as Share does.
	if !m.network {
		return nil, fmt.Errorf("mesh: rank %d: host-resident memory is only for peers over a network transport, and every pair of this job is connected by %s", m.Rank, mappingTitles())
	}
	if bytes == 0 {
		return nil, fmt.Errorf("mesh: rank %d: host-resident memory of 0 bytes", m.Rank)
	}
	host, dev, err := m.GPU.AllocMapped(bytes)
	if err != nil {
		return nil, fmt.Errorf("mesh: rank %d: host-resident memory of %d bytes: %w", m.Rank, bytes, err)
	}
	m.hostAllocs = append(m.hostAllocs, host)
	return m.shareLocal(LocalMemory{Ptr: dev, Size: bytes, Host: host})
}

// hostResident returns the host-resident registration that holds local memory
// [p, p+size), if any: a port channel from it sends from host memory.
func (m *Mesh) hostResident(p device.Ptr, size uint64) (uint32, LocalMemory, bool) {
	for id, l := range m.reg.all() {
		if l.Host != nil && p >= l.Ptr && uint64(p-l.Ptr) <= l.Size && size <= l.Size-uint64(p-l.Ptr) {
			return uint32(id), l, true
		}
	}
	return 0, LocalMemory{}, false
}

// hostRegion is host-resident local memory [p, p+size) of registration (id, l) as a port
// channel's source: Host is where the CPU reads it; InfiniBand addresses it by that host
// address, with the registration's key.
func hostRegion(id uint32, l LocalMemory, p device.Ptr, size uint64, t Transport) Region {
	host := unsafe.Add(l.Host, uint64(p-l.Ptr))
	r := Region{Base: p, Size: size, ID: id, Host: host}
	if x := l.regs[t]; x != nil {
		r.Base, r.Key = device.Ptr(uintptr(host)), x.Key()
	}
	return r
}
