package sendrecv

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allgather"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// sendrecv put: over memory channels, each block puts its share of my buffer into the next
// rank's output (in place: moves it through registers, piece by piece), meeting only the
// neighbours' blocks of the same index (sendrecv.cu).
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "sendrecv", Name: "put", Number: 1, AnyOffset: true,
		Doc:      "memory channels: SM puts to the next rank, per-block handshakes",
		MinRanks: 2,
		AutoMin:  0, AutoMax: 1 << 62, AutoPriority: 0,
		New: newSendRecvPut,
	})
}

// sendRecvPutBytesPerBlock is how many bytes one block puts up to sendRecvPutSmallMax;
// above, blockput's. On 2×H200 (graph, -n 100), 32 KiB per block against 64 KiB took 5.88
// against 6.59 µs at 256 KiB and 11.06 against 11.28 at 2 MiB, but 17.2 against 17.0 at
// 4 MiB and 30.0 against 28.8 at 8 MiB.
const (
	sendRecvPutBytesPerBlock = 32 << 10
	sendRecvPutSmallMax      = 2 << 20
)

type sendRecvPut struct{ *algo.BlockPut[SendRecvArgs] }

func newSendRecvPut(env *collectives.Env) (collectives.Instance, error) {
	p, err := algo.NewBlockPut(env, SendRecvPut)
	if err != nil {
		return nil, err
	}
	return &sendRecvPut{p}, nil
}

func (a *sendRecvPut) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	per := uint64(allgather.BlockputBytesPerBlock)
	if l.SendBytes <= sendRecvPutSmallMax {
		per = sendRecvPutBytesPerBlock
	}
	grid := a.Blocks(l.SendBytes, per)
	return a.Kernel.Launch(device.Dim{Grid: grid, Block: 1024}, s, &SendRecvArgs{
		Chans: a.Chans, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), Off: l.OutOff,
		Bytes: l.SendBytes, Rank: uint32(e.Rank), NRanks: uint32(e.NRanks),
		InPlace: algo.B2U(l.InPlace), State: a.State,
	})
}
