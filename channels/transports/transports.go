// Package transports links every transport into a program: importing it for its side
// effect registers CUDA IPC, Ethernet and InfiniBand with channels, so that a mesh can
// connect pairs over any of them. A program or test that wants fewer imports the
// transports' packages itself.
package transports

import (
	_ "github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"  // CUDA IPC between GPUs of one host
	_ "github.com/mscclpp-bench/mscclpp-bench/channels/ethernet" // TCP sockets between hosts
	_ "github.com/mscclpp-bench/mscclpp-bench/channels/ib"       // InfiniBand RDMA between hosts
)
