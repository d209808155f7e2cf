package sendrecv

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// SendRecvArgs are sendrecv_put's parameters (sendrecv.cu).
type SendRecvArgs struct {
	Chans        device.Ptr // MemoryChannelHandle[block][peer] to the peers' outputs
	In, Out      device.Ptr // in place, the same buffer
	Off          uint64     // the buffers' offset, the same on every rank
	Bytes        uint64     // bytes each rank sends (and receives)
	Rank, NRanks uint32
	InPlace      uint32
	State        device.Ptr // LaunchState
}

// SendRecvPut sends to the next rank by SM puts (in place: through registers, piece by
// piece) with per-block handshakes.
var SendRecvPut = params.DeclareFunc[SendRecvArgs]("sendrecv_put")
