package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// allgather blockput: like put, but block b of every rank meets only block b of the peers,
// before and after its share (allgather_blockput.cu): no grid-wide barrier.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allgather", Name: "blockput", Number: 4, AnyOffset: true,
		Doc:      "memory channels: SM puts, each block handshakes with the peers' same block",
		MinRanks: 2,
		AutoMin:  1<<20 + 1, AutoMax: 64 << 20, AutoPriority: 0,
		New: newAllgatherBlockput,
	})
}

type allgatherBlockput struct {
	*algo.BlockPut[AllgatherBlockputArgs]
}

// BlockputBytesPerBlock is how many bytes of the gathered output one block moves: a grid
// fills the GPU from 8 MiB (132 SMs); fewer blocks were slower at every size measured.
const BlockputBytesPerBlock = 64 << 10

func newAllgatherBlockput(env *collectives.Env) (collectives.Instance, error) {
	p, err := algo.NewBlockPut(env, AllgatherBlockput)
	if err != nil {
		return nil, err
	}
	return &allgatherBlockput{p}, nil
}

func (a *allgatherBlockput) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	grid, local := a.PutGrid(a.Blocks(l.SendBytes*uint64(e.NRanks), BlockputBytesPerBlock), l.InPlace)
	return a.Kernel.Launch(device.Dim{Grid: grid, Block: 1024}, s, &AllgatherBlockputArgs{
		OutChans: a.Chans, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), OutOff: l.OutOff, Chunk: l.SendBytes,
		Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), LocalBlocks: uint32(local), State: a.State,
	})
}
