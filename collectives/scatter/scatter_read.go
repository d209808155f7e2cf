package scatter

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/broadcast"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// scatter read: over memory channels, every rank reads its slot of the root's input over
// NVLink into its output. That is broadcast's read kernel
// (collectives/broadcast/broadcast.cu) given slot `rank` of the root's input instead of the
// whole of it.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "scatter", Name: "read", Number: 1, AnyOffset: true,
		Doc:      "memory channels: every rank reads its slot of the root's buffer",
		MinRanks: 2,
		AutoMin:  0, AutoMax: 1 << 62, AutoPriority: 0,
		New: newScatterRead,
	})
}

// ScatterRead is scatter's read algorithm set up for a run (exported for the tests in
// collectives/all that run several collectives' algorithms together).
type ScatterRead struct {
	*algo.Base
	algo.PeerBuffers
	K params.Kernel[broadcast.BroadcastReadArgs]
}

func newScatterRead(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &ScatterRead{Base: b}
	if a.K, err = broadcast.BroadcastRead.Load(env.GPU); err != nil {
		return nil, err
	}
	a.PeerBuffers, err = b.PeerBuffers()
	return a, err
}

// Launch enqueues one call of the collective on s.
func (a *ScatterRead) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	slot := uint64(e.Rank) * l.RecvBytes // my slot of the root's input
	return a.K.Launch(device.Dim{Grid: a.Blocks(l.RecvBytes, 16<<10), Block: 1024}, s, &broadcast.BroadcastReadArgs{
		Chans: a.Inputs(l), In: e.InPtr(l, e.Rank).Add(slot), Out: e.OutPtr(l, e.Rank), RootInOff: l.InOffOf(l.Root) + slot,
		Bytes: l.RecvBytes, Root: uint32(l.Root), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
