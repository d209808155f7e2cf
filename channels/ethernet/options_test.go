package ethernet

import (
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ib"
	"github.com/mscclpp-bench/mscclpp-bench/internal/rdma"
)

// ethOpts is a small Ethernet set-up: 2 sockets, 256 KiB pieces, 2 slots deep, so each
// direction stages through 1 MiB.
func ethOpts(mode channels.Mode, host string) channels.MeshOptions {
	return meshOpts(mode, host, Options{Sockets: 2, Chunk: 256 << 10, Depth: 2})
}

// meshOpts is a mesh of mode on host with Ethernet options o.
func meshOpts(mode channels.Mode, host string, o Options) channels.MeshOptions {
	m := channels.MeshOptions{Mode: mode, Timeout: 20 * time.Second, Hostname: host}
	m.SetTransportOptions(Transport, o)
	return m
}

// setEth changes the Ethernet options of o.
func setEth(o *channels.MeshOptions, f func(*Options)) {
	e, _ := o.TransportOptions(Transport).(Options)
	f(&e)
	o.SetTransportOptions(Transport, e)
}

// ibMeshOpts connects every pair over the stand-in InfiniBand fabric v.
func ibMeshOpts(v rdma.Verbs) channels.MeshOptions {
	o := ethOpts(ib.Mode, "node")
	o.SetTransportOptions(ib.Transport, ib.Options{Verbs: v})
	return o
}
