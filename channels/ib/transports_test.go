package ib

// Meshes in the tests connect ranks of one host over CUDA IPC, and hosts without an
// HCA over Ethernet, in auto mode.
import (
	_ "github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	_ "github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
)
