package alltoall

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// AlltoallPortAutoMin is where -k auto switches from blockput to port out of place: on
// 2×H200 (graph mode), since blockput copies my own chunk on blocks of its own, port is 4 %
// slower at 128 MiB, 2 % faster at 256 MiB and 6 % at 512 MiB (2026-11-23, two runs of each;
// docs/performance.md). In place, port pays one more copy and auto keeps blockput
// (0.74–0.88× port's time there at 128–512 MiB).
const AlltoallPortAutoMin = 256 << 20

// alltoall port: the CPU proxy copies my chunk for every peer into its output with the copy
// engine (in place: into its scratch, then the peer copies it out); SMs copy my own chunk
// meanwhile (alltoall_port.cu). One host.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "alltoall", Name: "port", Number: 2, AnyOffset: true,
		Doc:      "port channels: the proxy drives the copy engine; large messages",
		MinRanks: 2,
		AutoMin:  AlltoallPortAutoMin, AutoPriority: -1, // before blockput (0)
		AutoOutOfPlace: true,
		New:            newAlltoallPort,
	})
}

type alltoallPort struct {
	*algo.Base
	algo.PortStaged
	k params.Kernel[AlltoallPortArgs]
}

func newAlltoallPort(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &alltoallPort{Base: b}
	if a.k, err = AlltoallPort.Load(env.GPU); err != nil {
		return nil, err
	}
	a.PortStaged, err = algo.NewPortStaged(b)
	return a, err
}

func (a *alltoallPort) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	chans, scratch, dstOff := a.Route(l)
	chunk := l.SendBytes / uint64(e.NRanks)
	// out of place: block 0 drives the channels, the others copy my own chunk; in place:
	// every block copies the peers' chunks from the scratch at the end
	grid := min(1+a.Blocks(chunk, 1<<20), e.SMs)
	if l.InPlace {
		grid = a.Blocks(l.RecvBytes-chunk, 1<<20)
	}
	return a.k.Launch(device.Dim{Grid: grid, Block: 1024}, s, &AlltoallPortArgs{
		Chans: chans, SyncChans: a.SyncChans, Scratch: scratch, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		SrcOff: l.InOff, DstOff: dstOff, Chunk: chunk, Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
