// Package cudaipc is the CUDA IPC transport: GPUs of one host map each other's buffers and
// tokens (cuIpcOpenMemHandle), and the proxy's writes and signals are copy-engine copies
// and 64-bit stream writes on a stream of the connection's own. It registers itself with
// channels in its init.
package cudaipc

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Transport is the CUDA IPC transport's bit.
const Transport channels.Transport = 1

// Mode connects every pair over CUDA IPC (--transport nvlink): all ranks share one host.
const Mode = channels.Mode(Transport)

func init() {
	channels.RegisterTransport(channels.TransportInfo{
		Transport: Transport, Name: "cudaipc", Title: "CUDA IPC", Flag: "nvlink", Aliases: []string{"cudaipc"},
		Priority: 300, // above every network transport, for the pairs of one host
		Maps:     true,
		Offer:    channels.OfferOnUse,
		Open:     openCUDAIPC,
	})
}

// cudaIPCNet connects this rank to the peers of its host that the mesh pairs over CUDA
// IPC; it holds nothing of its own.
type cudaIPCNet struct {
	m  *channels.Mesh
	me channels.Endpoint
}

// openCUDAIPC is the CUDA IPC transport's OpenFunc.
func openCUDAIPC(m *channels.Mesh, me *channels.Endpoint) (channels.Network, error) {
	return &cudaIPCNet{m: m, me: *me}, nil
}

// ConnectPeer implements channels.PeerConnector.
func (n *cudaIPCNet) ConnectPeer(p int) (channels.Connection, error) {
	return newCUDAIPCConn(n.m.GPU, n.me, n.m.Endpoints[p], n.m.Opts.Timeout)
}

// Connect implements Network (the mesh connects peer by peer: ConnectPeer).
func (n *cudaIPCNet) Connect(peers []int) (map[int]channels.Connection, error) {
	conns := map[int]channels.Connection{}
	for _, p := range peers {
		c, err := n.ConnectPeer(p)
		if err != nil {
			return conns, err
		}
		conns[p] = c
	}
	return conns, nil
}

// Close implements Network.
func (n *cudaIPCNet) Close() error { return nil }

// cudaIPCConn connects two GPUs of one host: the peer's buffers and tokens are mapped
// here (CUDA IPC), so a write is an async copy on the copy engine, a signal a 64-bit write
// queued behind it on the same stream (or a CPU store when the token is in host memory
// and the stream is idle), and a flush waits for the stream.
type cudaIPCConn struct {
	gpu     device.GPU // owns stream (nil in tests that drive a fake copy engine)
	ce      channels.CopyEngine
	stream  device.Stream
	timeout time.Duration
	// busy: copies or writes were queued on stream since it was last seen idle.
	busy bool
}

// newCUDAIPCConn checks that this GPU can map the peer's (same host, a peer-to-peer path)
// and returns the connection, with a stream of its own.
func newCUDAIPCConn(g device.GPU, local, remote channels.Endpoint, timeout time.Duration) (*cudaIPCConn, error) {
	if local.HostID != remote.HostID {
		return nil, fmt.Errorf("connect rank %d (host %s) to rank %d (host %s): CUDA IPC connects GPUs of one host",
			local.Rank, local.HostID, remote.Rank, remote.HostID)
	}
	ok, err := g.CanAccessPeer(remote.BusID)
	if err != nil {
		return nil, fmt.Errorf("connect rank %d to rank %d: %w", local.Rank, remote.Rank, err)
	}
	if !ok {
		return nil, fmt.Errorf("connect rank %d to rank %d: GPU %d (%s, bus %s) cannot access GPU %d (%s, bus %s): no peer-to-peer path",
			local.Rank, remote.Rank, local.Device, local.GPUName, local.BusID, remote.Device, remote.GPUName, remote.BusID)
	}
	s, err := g.NewStream()
	if err != nil {
		return nil, fmt.Errorf("proxy stream for rank %d: %w", remote.Rank, err)
	}
	return &cudaIPCConn{gpu: g, ce: g, stream: s, timeout: timeout}, nil
}

// Transport implements Connection.
func (c *cudaIPCConn) Transport() channels.Transport { return Transport }

// Handle implements Connection.
func (c *cudaIPCConn) Handle(ch *channels.ProxyChannel, t channels.Trigger) error {
	write, signal, flush := t.Steps()
	if write {
		if err := c.write(ch.Dst.Ptr().Add(t.DstOffset()), ch.Src.Ptr().Add(t.SrcOffset()), t.Size()); err != nil {
			return err
		}
	}
	if signal {
		if err := c.signal(&ch.Token, ch.Outbound(), write); err != nil {
			return fmt.Errorf("signal: %w", err)
		}
	}
	if flush {
		if err := c.flush(); err != nil {
			return fmt.Errorf("flush: %w", err)
		}
	}
	return nil
}

func (c *cudaIPCConn) write(dst, src device.Ptr, bytes uint64) error {
	if err := c.ce.CopyAsync(dst, src, bytes, c.stream); err != nil {
		return err
	}
	c.busy = true
	return nil
}

// signal sets the peer's token to v behind the copies queued so far. justWrote: this
// trigger's own copy was just queued, so the stream is certainly busy.
func (c *cudaIPCConn) signal(tok *channels.Region, v uint64, justWrote bool) error {
	direct, err := c.storable(tok, justWrote)
	if err != nil {
		return err
	}
	if direct {
		// Nothing of this stream is in flight, so no earlier stream write can land
		// after this store and take the token back.
		atomic.StoreUint64((*uint64)(tok.Host), v)
		return nil
	}
	if err := c.ce.WriteValue64Async(tok.Ptr(), v, c.stream); err != nil {
		return err
	}
	c.busy = true
	return nil
}

// storable says whether a signal can be a CPU store: the token is in host memory and
// the stream has nothing in flight.
func (c *cudaIPCConn) storable(tok *channels.Region, justWrote bool) (bool, error) {
	if tok.Host == nil || justWrote {
		return false, nil
	}
	if !c.busy {
		return true, nil
	}
	idle, err := c.ce.StreamIdle(c.stream)
	if err != nil || !idle {
		return false, err
	}
	c.busy = false
	return true, nil
}

func (c *cudaIPCConn) flush() error {
	if err := c.ce.Synchronize(c.stream, c.timeout); err != nil {
		return err
	}
	c.busy = false
	return nil
}

// Close implements Connection: it destroys the stream.
func (c *cudaIPCConn) Close() error {
	if c.gpu == nil {
		return nil
	}
	return c.gpu.DestroyStream(c.stream)
}
