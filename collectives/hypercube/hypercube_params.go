package hypercube

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// HypercubeArgs are hypercube_put's parameters (hypercube.cu).
type HypercubeArgs struct {
	Chans        device.Ptr // MemoryChannelHandle[block][peer] to the peers' outputs
	In, Out      device.Ptr // in place, In is slot Rank of Out
	Off          uint64     // the outputs' offset, the same on every rank
	Chunk        uint64     // bytes of each rank's input (a slot)
	Rank, NRanks uint32
	State        device.Ptr // LaunchState
}

// HypercubePut is the hypercube all-gather by SM puts with per-block handshakes.
var HypercubePut = params.DeclareFunc[HypercubeArgs]("hypercube_put")
