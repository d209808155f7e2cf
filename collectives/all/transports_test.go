package all

import (
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"

	// The tests build meshes over every transport.
	_ "github.com/mscclpp-bench/mscclpp-bench/channels/transports"
)

// withEthernet returns o with Ethernet options eth.
func withEthernet(o channels.MeshOptions, eth ethernet.Options) channels.MeshOptions {
	o.SetTransportOptions(ethernet.Transport, eth)
	return o
}
