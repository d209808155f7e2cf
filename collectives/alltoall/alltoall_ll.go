package alltoall

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// alltoall ll16: every chunk goes as LL16 packets into its peer's scratch, with no barrier
// (alltoall_ll.cu): the lowest latency for small messages. -k auto picks it up to
// 1 MiB, as allgather's ll16 with the same traffic; that threshold is to be tuned on GPUs.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "alltoall", Name: "ll16", Number: 0, AnyOffset: true,
		Doc:      "LL16 packets into every peer's scratch, no barrier; small messages",
		MaxBytes: 32 << 20, MinRanks: 2,
		AutoMin: 0, AutoMax: 1 << 20, AutoPriority: -1, // before blockput (0)
		New: newAlltoallLL,
	})
}

// AlltoallLL is alltoall's ll16 algorithm set up for a run (exported for the tests in
// collectives/all that run several collectives' algorithms together).
type AlltoallLL struct {
	*algo.Base
	algo.LLScratch
	K params.Kernel[AlltoallLL16Args]
}

func newAlltoallLL(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &AlltoallLL{Base: b}
	if a.K, err = AlltoallLL16.Load(env.GPU); err != nil {
		return nil, err
	}
	// two halves of a slot per rank, each for one rank's largest chunk
	n := uint64(env.NRanks)
	a.LLScratch, err = b.LLScratch(algo.Limit(32<<20, env.MaxBytes)/n, 2*n, false)
	return a, err
}

// Launch enqueues one call of the collective on s.
func (a *AlltoallLL) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	chunk := l.SendBytes / uint64(e.NRanks)
	return a.K.Launch(a.LLGrid(chunk), s, &AlltoallLL16Args{
		Chans: a.Chans, Scratch: a.Scratch, SlotBytes: a.SlotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		Chunk: chunk, Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
