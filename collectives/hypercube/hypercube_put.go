package hypercube

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allgather"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// hypercube put: over memory channels, log2(n) steps in which each block puts its share
// of every slot it holds into the same slots of the step's partner, meeting only the
// partners' blocks of the same index (hypercube.cu).
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "hypercube", Name: "put", Number: 1, AnyOffset: true,
		Doc:      "memory channels: SM puts to the partner of each step, per-block handshakes",
		MinRanks: 2,
		AutoMin:  0, AutoMax: 1 << 62, AutoPriority: 0,
		New: newHypercubePut,
	})
}

// HypercubePutInstance is hypercube's put algorithm set up for a run (exported for the
// tests in collectives/all that check its launch arguments).
type HypercubePutInstance struct{ *algo.BlockPut[HypercubeArgs] }

func newHypercubePut(env *collectives.Env) (collectives.Instance, error) {
	p, err := algo.NewBlockPut(env, HypercubePut)
	if err != nil {
		return nil, err
	}
	return &HypercubePutInstance{p}, nil
}

// Launch enqueues one call of the collective on s.
func (a *HypercubePutInstance) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	return a.Kernel.Launch(device.Dim{Grid: a.Blocks(l.RecvBytes, allgather.BlockputBytesPerBlock), Block: 1024}, s, &HypercubeArgs{
		Chans: a.Chans, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), Off: l.OutOff,
		Chunk: l.SendBytes, Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
