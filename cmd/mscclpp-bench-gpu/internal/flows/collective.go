package flows

import (
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/cmd/mscclpp-bench-gpu/internal/sweep"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// runCollective runs a registered collective on this rank (sweep, tested on the
// CPU, does the work).
func runCollective(j *Job) error {
	c := j.Plan.Collective
	stream := j.Stream
	if c.NCCLTests.StreamNull {
		stream = 0 // -y 1: CUDA's legacy default stream (the mesh's streams do not block on it)
	}
	header := func(testName string) results.Header {
		h := j.Header(testName)
		h.AggIters, h.Graph = max(c.AggIters, 1), c.Graph
		return h
	}
	r := sweep.Rank{
		Cfg: c, Args: j.Plan.Args, GPU: j.GPU, Mesh: j.Mesh, Stream: stream, SMs: j.SMs, Sharing: j.Sharing, Out: j.Out, SetupMem: j.SetupMem,
		Header: header, Meter: j.Meter(), WriteJSON: j.WriteJSON, Barrier: j.Barrier(),
		AfterCycle: func(p *results.TextPrinter, cycle int) error { return j.noteMemory(p, cycle) },
	}
	if rule := c.Env.Split; rule.On() { // NCCL_TESTS_SPLIT_MASK, NCCL_TESTS_SPLIT
		return sweep.RunSplit(r, rule, func(b channels.Bootstrap) (*channels.Mesh, error) {
			return channels.NewMesh(j.GPU, b, j.Mesh.Opts)
		})
	}
	return sweep.Run(r)
}

// Dispatch runs the plan's subcommand on the joined rank j: pingpong, acceptance, or any
// collective the registry has.
func Dispatch(j *Job) error {
	switch p := j.Plan; {
	case p.PingPong != nil:
		return runPingPong(j)
	case p.Acceptance != nil:
		return runAcceptance(j)
	case p.Collective != nil:
		return runCollective(j) // every registered collective
	}
	return fmt.Errorf("the GPU worker does not run %q", j.Plan.Command)
}
