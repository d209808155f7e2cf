package channels_test

import (
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"

	// The core's external tests build meshes over every transport.
	_ "github.com/mscclpp-bench/mscclpp-bench/channels/transports"
)

// ethOpts is a small Ethernet set-up: 2 sockets, 256 KiB pieces, 2 slots deep, so each
// direction stages through 1 MiB.
func ethOpts(mode channels.Mode, host string) channels.MeshOptions {
	o := channels.MeshOptions{Mode: mode, Timeout: 20 * time.Second, Hostname: host}
	o.SetTransportOptions(ethernet.Transport, ethernet.Options{Sockets: 2, Chunk: 256 << 10, Depth: 2})
	return o
}
