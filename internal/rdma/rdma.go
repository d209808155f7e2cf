// Package rdma declares, as plain types and interfaces, the InfiniBand verbs that the
// IB transport (channels/ib) needs. internal/ibverbs implements them with
// libibverbs, loaded at run time; tests implement them in memory. Nothing here needs an
// HCA or links the library, so the transport's protocol is tested on any machine.
package rdma

// Verbs opens HCAs.
type Verbs interface {
	// Open opens the named HCA ("" = the first device with an active port), its port and
	// a protection domain.
	Open(name string) (Device, error)
}

// Device is an opened HCA port with its protection domain.
type Device interface {
	Port() Port
	// Register registers memory for RDMA: addr is a host or GPU address; for GPU memory
	// exported as a dma-buf, dmabufFd >= 0 and addr lies dmabufOffset bytes into it
	// (otherwise the peer-memory driver must know GPU addresses).
	Register(addr, size uint64, dmabufFd int, dmabufOffset uint64) (MemoryRegion, error)
	// HostBuffer returns registered host memory of n bytes, freed with the region.
	HostBuffer(n int) ([]byte, MemoryRegion, error)
	// NewQueuePair makes a reliable-connected queue pair whose send queue holds depth
	// work requests, every one signalled, with a completion queue of its own.
	NewQueuePair(depth int) (QueuePair, error)
	Close() error
}

// Port is what a peer needs to reach this rank's queue pairs.
type Port struct {
	LID     uint16
	GID     [16]byte // zero on InfiniBand without a global route header
	MTU     uint8    // ibv_mtu: 1 (256 bytes) … 5 (4096)
	Atomics bool     // the HCA does RDMA fetch-and-add
}

// MemoryRegion is registered memory.
type MemoryRegion interface {
	LKey() uint32
	RKey() uint32
	Close() error
}

// QueuePair is a reliable-connected queue pair; a work request's completion carries its id.
type QueuePair interface {
	Number() uint32
	// Connect takes the pair to ready-to-send towards the remote pair.
	Connect(local, remote Port, remoteQPN, localPSN, remotePSN uint32) error
	// PostWrite posts an RDMA write of n bytes from local memory to remote memory.
	PostWrite(id, laddr uint64, lkey uint32, n, raddr uint64, rkey uint32) error
	// PostFetchAdd posts an atomic add to the remote 8 bytes; the old value lands at laddr.
	PostFetchAdd(id, laddr uint64, lkey uint32, raddr uint64, rkey uint32, add uint64) error
	// Poll fills out with completed work requests and returns how many.
	Poll(out []Completion) (int, error)
	Close() error
}

// Completion is a completed work request.
type Completion struct {
	ID     uint64
	Status int    // 0: success (IBV_WC_SUCCESS)
	Err    string // the status, named, when not 0
}
