package gather

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// gather read: over memory channels, the root reads every peer's input over NVLink into
// its slot of the root's output (gather.cu).
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "gather", Name: "read", Number: 1, AnyOffset: true,
		Doc:      "memory channels: the root reads every rank's buffer",
		MinRanks: 2,
		AutoMin:  0, AutoMax: 1 << 62, AutoPriority: 0,
		New: newGatherRead,
	})
}

// GatherReadInstance is gather's read algorithm set up for a run (exported for the tests
// in collectives/all that run several collectives' algorithms together).
type GatherReadInstance struct {
	*algo.Base
	algo.PeerBuffers
	K params.Kernel[GatherReadArgs]
}

func newGatherRead(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &GatherReadInstance{Base: b}
	if a.K, err = GatherRead.Load(env.GPU); err != nil {
		return nil, err
	}
	a.PeerBuffers, err = b.PeerBuffers()
	return a, err
}

// Launch enqueues one call of the collective on s.
func (a *GatherReadInstance) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	grid := 1 // the other ranks only meet the root
	if e.Rank == l.Root {
		grid = a.Blocks(l.RecvBytes, 16<<10)
	}
	var stride uint64 // rank r's input is slot r of its output in place
	if l.InPlace {
		stride = l.SendInPlace
	}
	return a.K.Launch(device.Dim{Grid: grid, Block: 1024}, s, &GatherReadArgs{
		Chans: a.Inputs(l), In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), InOff: l.InOffOf(0), InStride: stride,
		Bytes: l.SendBytes, Root: uint32(l.Root), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
