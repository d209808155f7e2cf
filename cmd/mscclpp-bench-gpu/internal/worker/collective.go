package worker

import (
	"github.com/mscclpp-bench/mscclpp-bench/cmd/mscclpp-bench-gpu/internal/sweep"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// runCollective runs allgather or allreduce on this rank (internal/sweep, tested on the
// CPU, does the work).
func runCollective(j *Job) error {
	return sweep.Run(sweep.Rank{
		Cfg: j.Cfg, GPU: j.GPU, Mesh: j.Mesh, Stream: j.Stream, SMs: j.SMs, Out: j.Out,
		Header: j.Header, Meter: j.Meter(), WriteJSON: j.WriteJSON, Barrier: j.Barrier(),
		AfterCycle: func(p *results.TextPrinter, cycle int) error { return j.noteMemory(p, cycle) },
	})
}
