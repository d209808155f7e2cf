package broadcast

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// BroadcastPortAutoMin is where -k auto switches from read to port: measured on 2×H200
// (graph mode, out of place), port is 1–10 % slower at 64 MiB and faster from 128 MiB
// (2026-11-23, -k all --summary; docs/performance.md).
const BroadcastPortAutoMin = 128 << 20

// broadcast port: the CPU proxy copies the root's buffer into every peer's output with the
// copy engine; out of place the root's SMs copy its input into its output meanwhile
// (broadcast_port.cu). One host.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "broadcast", Name: "port", Number: 2, AnyOffset: true,
		Doc:      "port channels: the proxy drives the copy engine; large messages",
		MinRanks: 2,
		AutoMin:  BroadcastPortAutoMin, AutoPriority: -1, // before read (0)
		New: newBroadcastPort,
	})
}

type broadcastPort struct {
	*algo.Base
	algo.PortDirect
	fromOut device.Ptr // PortChannelHandle[npeers]: my output to the peers' outputs (in place)
	k       params.Kernel[BroadcastPortArgs]
}

func newBroadcastPort(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &broadcastPort{Base: b}
	if a.k, err = BroadcastPort.Load(env.GPU); err != nil {
		return nil, err
	}
	if a.PortDirect, err = algo.NewPortDirect(b); err != nil {
		return nil, err
	}
	me := env.Rank
	a.fromOut, err = b.PortChannelSets(1, env.Out, env.Out.Ptrs[me], env.OutBytes)
	return a, err
}

func (a *broadcastPort) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	chans, grid := a.FromIn, 1
	if l.InPlace {
		chans = a.fromOut
	} else if e.Rank == l.Root {
		// block 0 drives the channels, the others copy the root's input into its output
		grid = min(1+a.Blocks(l.SendBytes, 1<<20), e.SMs)
	}
	// every rank's output lies at the same offset (broadcast's in-place stride is 0)
	return a.k.Launch(device.Dim{Grid: grid, Block: 1024}, s, &BroadcastPortArgs{
		Chans: chans, SyncChans: a.SyncChans, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		SrcOff: l.InOff, DstOff: l.OutOff, Bytes: l.SendBytes, Root: uint32(l.Root), Rank: uint32(e.Rank),
		NRanks: uint32(e.NRanks), State: a.State,
	})
}
