package ib

import (
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/internal/rdma"
)

// ibOpts connects pairs over the stand-in InfiniBand fabric v (and, in auto mode, over a
// small Ethernet set-up where a rank has no HCA).
func ibOpts(mode channels.Mode, v rdma.Verbs) channels.MeshOptions {
	o := channels.MeshOptions{Mode: mode, Timeout: 20 * time.Second, Hostname: "node"}
	o.SetTransportOptions(ethernet.Transport, ethernet.Options{Sockets: 2, Chunk: 256 << 10, Depth: 2})
	o.SetTransportOptions(Transport, Options{Verbs: v})
	return o
}
