package channels

import (
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Bootstrap is the control plane the mesh exchanges set-up data over
// (bootstrap.TcpBootstrap implements it).
type Bootstrap interface {
	Rank() int
	NRanks() int
	Send(peer, tag int, data []byte) error
	Recv(peer, tag int) ([]byte, error)
	AllGather(mine []byte) ([][]byte, error)
	Barrier() error
}

// Connection is a checked path from this rank's GPU to a peer's.
type Connection struct {
	Local, Remote Endpoint
	Transport     Transport
}

// Connect checks that local can reach remote over transport and returns the connection.
// CUDA IPC needs both GPUs on one host and a peer-to-peer path between them.
func Connect(g device.GPU, local, remote Endpoint, transport Transport) (*Connection, error) {
	switch transport {
	case TransportCudaIpc:
	case TransportIB:
		return nil, ErrIBNotBuilt
	default:
		return nil, fmt.Errorf("connect rank %d to rank %d: unknown transport %v", local.Rank, remote.Rank, transport)
	}
	if local.Hostname != remote.Hostname {
		return nil, fmt.Errorf("connect rank %d (host %s) to rank %d (host %s): CUDA IPC connects GPUs of one host, and the InfiniBand transport is not built yet",
			local.Rank, local.Hostname, remote.Rank, remote.Hostname)
	}
	ok, err := g.CanAccessPeer(remote.BusID)
	if err != nil {
		return nil, fmt.Errorf("connect rank %d to rank %d: %w", local.Rank, remote.Rank, err)
	}
	if !ok {
		return nil, fmt.Errorf("connect rank %d to rank %d: GPU %d (%s, bus %s) cannot access GPU %d (%s, bus %s): no peer-to-peer path",
			local.Rank, remote.Rank, local.Device, local.GPUName, local.BusID, remote.Device, remote.GPUName, remote.BusID)
	}
	return &Connection{Local: local, Remote: remote, Transport: transport}, nil
}
