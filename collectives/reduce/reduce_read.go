package reduce

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// reduce read: over memory channels, the root reads every peer's input over NVLink and
// reduces them in rank order into its output (reduce.cu).
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "reduce", Name: "read", Number: 1, AnyOffset: true,
		Doc:      "memory channels: the root reads every rank's buffer and reduces",
		MinRanks: 2,
		AutoMin:  0, AutoMax: 1 << 62, AutoPriority: 0,
		New: newReduceRead,
	})
}

// ReduceReadInstance is reduce's read algorithm set up for a run (exported for the tests
// in collectives/all that run several collectives' algorithms together).
type ReduceReadInstance struct {
	*algo.Base
	algo.PeerBuffers
	K *algo.TypedKernels[ReduceReadArgs]
}

func newReduceRead(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &ReduceReadInstance{Base: b}
	if a.K, err = algo.LoadTyped(env.GPU, ReduceRead, nil); err != nil {
		return nil, err
	}
	a.PeerBuffers, err = b.PeerBuffers()
	return a, err
}

// Launch enqueues one call of the collective on s.
func (a *ReduceReadInstance) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	k, err := a.K.Get(l.Type, l.Op)
	if err != nil {
		return err
	}
	e := a.Env
	grid := 1 // the other ranks only meet the root
	if e.Rank == l.Root {
		grid = a.Blocks(l.RecvBytes, 16<<10)
	}
	return k.Launch(device.Dim{Grid: grid, Block: 1024}, s, &ReduceReadArgs{
		Chans: a.Inputs(l), In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), InOff: l.InOffOf(0),
		Count: l.RecvBytes / uint64(l.Type.Size), Root: uint32(l.Root), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
