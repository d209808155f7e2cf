package ethernet

// Meshes in the tests connect ranks of one host over CUDA IPC in auto mode, and
// host_memory_test.go compares Ethernet with InfiniBand (the stand-in HCA).
import (
	_ "github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	_ "github.com/mscclpp-bench/mscclpp-bench/channels/ib"
)
