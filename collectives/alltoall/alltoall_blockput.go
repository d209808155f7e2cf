package alltoall

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allgather"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// alltoall blockput: over memory channels, each block puts its share of my chunks into the
// peers' outputs (in place: swaps them pairwise), meeting only the peers' blocks of the same
// index before and after (alltoall.cu).
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "alltoall", Name: "blockput", Number: 1, AnyOffset: true,
		Doc:      "memory channels: SM puts (in place: pairwise swaps), per-block handshakes",
		MinRanks: 2,
		AutoMin:  0, AutoMax: 1 << 62, AutoPriority: 0,
		New: newAlltoallBlockput,
	})
}

type alltoallBlockput struct{ *algo.BlockPut[AlltoallArgs] }

func newAlltoallBlockput(env *collectives.Env) (collectives.Instance, error) {
	p, err := algo.NewBlockPut(env, AlltoallBlockput)
	if err != nil {
		return nil, err
	}
	return &alltoallBlockput{p}, nil
}

func (a *alltoallBlockput) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	grid, local := a.PutGrid(a.Blocks(l.SendBytes, allgather.BlockputBytesPerBlock), l.InPlace)
	return a.Kernel.Launch(device.Dim{Grid: grid, Block: 1024}, s, &AlltoallArgs{
		Chans: a.Chans, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), Off: l.OutOff,
		Chunk: l.SendBytes / uint64(e.NRanks), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks),
		InPlace: algo.B2U(l.InPlace), LocalBlocks: uint32(local), State: a.State,
	})
}
