package broadcast

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// broadcast read: over memory channels, every rank reads the root's input over NVLink
// into its output (broadcast.cu).
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "broadcast", Name: "read", Number: 1, AnyOffset: true,
		Doc:      "memory channels: every rank reads the root's buffer",
		MinRanks: 2,
		AutoMin:  0, AutoMax: 1 << 62, AutoPriority: 0,
		New: newBroadcastRead,
	})
}

// BroadcastReadInstance is broadcast's read algorithm set up for a run (exported for the
// tests in collectives/all that run several collectives' algorithms together).
type BroadcastReadInstance struct {
	*algo.Base
	algo.PeerBuffers
	K params.Kernel[BroadcastReadArgs]
}

func newBroadcastRead(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &BroadcastReadInstance{Base: b}
	if a.K, err = BroadcastRead.Load(env.GPU); err != nil {
		return nil, err
	}
	a.PeerBuffers, err = b.PeerBuffers()
	return a, err
}

// Launch enqueues one call of the collective on s.
func (a *BroadcastReadInstance) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	return a.K.Launch(device.Dim{Grid: a.Blocks(l.RecvBytes, 16<<10), Block: 1024}, s, &BroadcastReadArgs{
		Chans: a.Inputs(l), In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), RootInOff: l.InOffOf(l.Root),
		Bytes: l.RecvBytes, Root: uint32(l.Root), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
