package sendrecv

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// SendRecvPortAutoMin is where -k auto switches from put to port: measured on 2×H200
// (graph mode, out of place), port is 1–10 % slower at 64 MiB and faster from 128 MiB
// (2026-11-23, -k all --summary; docs/performance.md). In place, port pays one more copy and
// auto keeps put (7–17 % faster there at 128–512 MiB, 2026-11-23).
const SendRecvPortAutoMin = 128 << 20

// sendrecv port: the CPU proxy copies my buffer into the next rank's output with the copy
// engine (in place: into its scratch, then it copies it out) (sendrecv_port.cu).
// One host.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "sendrecv", Name: "port", Number: 2, AnyOffset: true,
		Doc:      "port channels: the proxy drives the copy engine; large messages",
		MinRanks: 2,
		AutoMin:  SendRecvPortAutoMin, AutoPriority: -1, // before put (0)
		AutoOutOfPlace: true,
		New:            newSendRecvPort,
	})
}

type sendRecvPort struct {
	*algo.Base
	algo.PortStaged
	k params.Kernel[SendRecvPortArgs]
}

func newSendRecvPort(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &sendRecvPort{Base: b}
	if a.k, err = SendRecvPort.Load(env.GPU); err != nil {
		return nil, err
	}
	a.PortStaged, err = algo.NewPortStaged(b)
	return a, err
}

func (a *sendRecvPort) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	chans, scratch, dstOff := a.Route(l)
	// out of place one block drives the channel; in place every block copies the scratch
	grid := 1
	if l.InPlace {
		grid = a.Blocks(l.RecvBytes, 1<<20)
	}
	return a.k.Launch(device.Dim{Grid: grid, Block: 1024}, s, &SendRecvPortArgs{
		Chans: chans, SyncChans: a.SyncChans, Scratch: scratch, Out: e.OutPtr(l, e.Rank),
		SrcOff: l.InOff, DstOff: dstOff, Bytes: l.SendBytes, Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
