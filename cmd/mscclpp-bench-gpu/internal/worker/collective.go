package worker

import (
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/cmd/mscclpp-bench-gpu/internal/sweep"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	_ "github.com/mscclpp-bench/mscclpp-bench/collectives/all" // every collective registers itself
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// runCollective runs a registered collective on this rank (sweep, tested on the
// CPU, does the work).
func runCollective(j *Job) error {
	stream := j.Stream
	if j.Cfg.NCCLTests.StreamNull {
		stream = 0 // -y 1: CUDA's legacy default stream (the mesh's streams do not block on it)
	}
	r := sweep.Rank{
		Cfg: j.Cfg, GPU: j.GPU, Mesh: j.Mesh, Stream: stream, SMs: j.SMs, MPSNetwork: j.MPSNetwork, Out: j.Out, SetupMem: j.SetupMem,
		Header: j.Header, Meter: j.Meter(), WriteJSON: j.WriteJSON, Barrier: j.Barrier(),
		AfterCycle: func(p *results.TextPrinter, cycle int) error { return j.noteMemory(p, cycle) },
	}
	if rule := j.Cfg.Env.Split; rule.On() { // NCCL_TESTS_SPLIT_MASK, NCCL_TESTS_SPLIT
		return sweep.RunSplit(r, rule, func(b channels.Bootstrap) (*channels.Mesh, error) {
			return channels.NewMesh(j.GPU, b, j.Mesh.Opts)
		})
	}
	return sweep.Run(r)
}

// dispatch runs the subcommand: pingpong, acceptance, or any collective the registry has.
func dispatch(j *Job) error {
	switch j.Cfg.Command {
	case "pingpong":
		return runPingPong(j)
	case "acceptance":
		return runAcceptance(j)
	}
	if _, err := collectives.Lookup(j.Cfg.Command); err == nil {
		return runCollective(j) // every registered collective
	}
	return fmt.Errorf("the GPU worker does not run %q", j.Cfg.Command)
}
