package sendrecv

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// sendrecv ll16: my buffer goes as LL16 packets into the next rank's scratch, with no
// barrier (sendrecv_ll.cu). -k auto picks it up to 512 KiB (a link carries the whole
// size, twice allgather ll16's share on two ranks); that threshold is to be tuned on GPUs.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "sendrecv", Name: "ll16", Number: 0, AnyOffset: true,
		Doc:      "LL16 packets into the next rank's scratch, no barrier; small messages",
		MaxBytes: 8 << 20, MinRanks: 2,
		AutoMin: 0, AutoMax: 512 << 10, AutoPriority: -1, // before put (0)
		New: newSendRecvLL,
	})
}

// SendRecvLL is sendrecv's ll16 algorithm set up for a run (exported for the tests in
// collectives/all that run several collectives' algorithms together).
type SendRecvLL struct {
	*algo.Base
	algo.LLScratch
	K params.Kernel[SendRecvLL16Args]
}

func newSendRecvLL(env *collectives.Env) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &SendRecvLL{Base: b}
	if a.K, err = SendRecvLL16.Load(env.GPU); err != nil {
		return nil, err
	}
	// the kernel cycles through max(nranks, 2) buffers (sendrecv_ll.cu says why)
	a.LLScratch, err = b.LLScratch(algo.Limit(8<<20, env.MaxBytes), uint64(max(env.NRanks, 2)), false)
	return a, err
}

// Launch enqueues one call of the collective on s.
func (a *SendRecvLL) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	return a.K.Launch(a.LLGrid(l.SendBytes), s, &SendRecvLL16Args{
		Chans: a.Chans, Scratch: a.Scratch, SlotBytes: a.SlotBytes, In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank),
		Bytes: l.SendBytes, Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
