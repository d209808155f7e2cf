package channels

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Verbs is the part of libibverbs that the InfiniBand transport uses. internal/ibverbs
// implements it with the library, loaded at run time; tests implement it in memory.
type Verbs interface {
	// Open opens the named HCA ("" = the first device with an active port), its port and
	// a protection domain.
	Open(name string) (IBDevice, error)
}

// IBDevice is an opened HCA port with its protection domain.
type IBDevice interface {
	Port() IBPort
	// Register registers memory for RDMA: addr is a host or GPU address; for GPU memory
	// exported as a dma-buf, dmabufFd >= 0 and addr lies dmabufOffset bytes into it
	// (otherwise the peer-memory driver must know GPU addresses).
	Register(addr, size uint64, dmabufFd int, dmabufOffset uint64) (IBMemoryRegion, error)
	// HostBuffer returns registered host memory of n bytes.
	HostBuffer(n int) ([]byte, IBMemoryRegion, error)
	// NewQueuePair makes a reliable-connected queue pair whose send queue holds depth
	// work requests, with its own completion queue.
	NewQueuePair(depth int) (IBQueuePair, error)
	Close() error
}

// IBPort is what a peer needs to reach this rank's queue pairs.
type IBPort struct {
	LID     uint16
	GID     [16]byte
	MTU     uint8 // ibv_mtu: 1 (256 bytes) … 5 (4096)
	Atomics bool  // the HCA does RDMA fetch-and-add
}

// IBMemoryRegion is registered memory.
type IBMemoryRegion interface {
	LKey() uint32
	RKey() uint32
	Close() error
}

// IBQueuePair is a reliable-connected queue pair. Every work request is signalled; its
// completion carries its id.
type IBQueuePair interface {
	Number() uint32
	// Connect takes the pair to ready-to-send towards the remote pair.
	Connect(local, remote IBPort, remoteQPN, localPSN, remotePSN uint32) error
	// PostWrite posts an RDMA write of n bytes from local memory to remote memory.
	PostWrite(id, laddr uint64, lkey uint32, n, raddr uint64, rkey uint32) error
	// PostFetchAdd posts an atomic add to the remote 8 bytes; the old value lands at laddr.
	PostFetchAdd(id, laddr uint64, lkey uint32, raddr uint64, rkey uint32, add uint64) error
	// Poll fills out with completed work requests and returns how many.
	Poll(out []IBCompletion) (int, error)
	Close() error
}

// IBCompletion is a completed work request.
type IBCompletion struct {
	ID     uint64
	Status int    // 0: success
	Err    string // the status, named, when not 0
}

// DmaBufExporter is implemented by GPUs that can export their memory as a dma-buf (CUDA
// 11.7+ on a recent driver), the way to register GPU memory for RDMA without the
// peer-memory module.
type DmaBufExporter interface {
	// ExportDmaBuf returns a dma-buf file descriptor covering [p, p+size) and p's offset
	// in it. The caller closes the descriptor.
	ExportDmaBuf(p device.Ptr, size uint64) (fd int, offset uint64, err error)
}

// EnvIBAtomics set to 0 makes signals plain RDMA writes of the token value even where
// both HCAs do atomics.
const EnvIBAtomics = "MSCCLPP_BENCH_IB_ATOMICS"

// ibDepth is the send queue depth of each queue pair.
const ibDepth = 256

// ibMaxWrite is the largest RDMA write one work request carries (a variable for tests).
var ibMaxWrite uint64 = 1 << 30

// ibNet is this rank's HCA.
type ibNet struct {
	dev  IBDevice
	port IBPort
}

func openIB(v Verbs, name string, _ time.Duration) (*ibNet, error) {
	if v == nil {
		return nil, errors.New("this build has no InfiniBand layer")
	}
	dev, err := v.Open(name)
	if err != nil {
		return nil, err
	}
	return &ibNet{dev: dev, port: dev.Port()}, nil
}

func (n *ibNet) close() error { return n.dev.Close() }

// ibAddr is the address under which memory is registered with the HCA.
func ibAddr(l localMemory) uint64 {
	if l.host != nil {
		return uint64(uintptr(l.host))
	}
	return uint64(l.ptr)
}

// register registers local memory with the HCA: host memory directly, GPU memory as a
// dma-buf where the GPU exports one, else by address (peer memory).
func (n *ibNet) register(g device.GPU, l localMemory) (IBMemoryRegion, error) {
	if l.host == nil {
		if x, ok := g.(DmaBufExporter); ok {
			fd, off, err := x.ExportDmaBuf(l.ptr, l.size)
			if err == nil {
				mr, err := n.dev.Register(uint64(l.ptr), l.size, fd, off)
				unix.Close(fd)
				if err == nil {
					return mr, nil
				}
			}
		}
	}
	return n.dev.Register(ibAddr(l), l.size, -1, 0)
}

// ibInfo is what two ranks exchange to connect their queue pairs.
type ibInfo struct {
	port IBPort
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
func (n *ibNet) connect(boot Bootstrap, rank, peer int, timeout time.Duration) (_ *ibConn, err error) {
	qp, err := n.dev.NewQueuePair(ibDepth)
	if err != nil {
		return nil, err
	}
	c := &ibConn{peer: peer, qp: qp, timeout: timeout, comps: make([]IBCompletion, 32)}
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
	c.atomics = n.port.Atomics && remote.port.Atomics && os.Getenv(EnvIBAtomics) != "0"
	if c.vals, c.valMR, err = n.dev.HostBuffer(8 * ibDepth); err != nil {
		return nil, fmt.Errorf("signal buffer: %w", err)
	}
	return c, nil
}
