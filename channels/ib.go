package channels

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/rdma"
)

// ibDepth is the send queue depth of each queue pair.
const ibDepth = 256

// ibMaxWrite is the largest RDMA write one work request carries (a variable for tests).
var ibMaxWrite uint64 = 1 << 30

// ibNet is this rank's HCA.
type ibNet struct {
	dev       rdma.Device
	port      rdma.Port
	noAtomics bool // signal by RDMA writes even where both HCAs do atomics
}

func openIB(v rdma.Verbs, name string, noAtomics bool) (*ibNet, error) {
	if v == nil {
		return nil, errors.New("this build has no InfiniBand layer")
	}
	dev, err := v.Open(name)
	if err != nil {
		return nil, err
	}
	return &ibNet{dev: dev, port: dev.Port(), noAtomics: noAtomics}, nil
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
func (n *ibNet) register(g device.GPU, l localMemory) (rdma.MemoryRegion, error) {
	if l.host == nil {
		if x, ok := g.(device.DMABufExporter); ok {
			fd, off, err := x.ExportDMABuf(l.ptr, l.size)
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
	port rdma.Port
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
	c := &ibConn{peer: peer, qp: qp, timeout: timeout, comps: make([]rdma.Completion, 32)}
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
	c.atomics = n.port.Atomics && remote.port.Atomics && !n.noAtomics
	if c.vals, c.valMR, err = n.dev.HostBuffer(8 * ibDepth); err != nil {
		return nil, fmt.Errorf("signal buffer: %w", err)
	}
	return c, nil
}
