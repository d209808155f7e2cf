// Package collectives is shaped like nccl-tests: a shared harness (size sweep, warmup,
// timing, CUDA graphs, verification, reporting) plus one small file per collective that
// supplies byte counts, expected values, the bus-bandwidth factor and its algorithms.
// Algorithms register themselves (registry.go); -k auto picks one per size and rank count.
//
// The package drives the GPU only through device.GPU and channels.Mesh, so everything but
// the kernels themselves (selection, byte counts, expected values, bandwidth, reports)
// is tested on the CPU.
package collectives

import (
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Env is what an algorithm gets to set itself up: the mesh and the harness's input and
// output buffers, already shared with every rank.
type Env struct {
	GPU      device.GPU
	Mesh     *channels.Mesh
	Rank     int
	NRanks   int
	SMs      int
	MaxBytes int64 // largest collective size it will be asked to run

	In, Out           *channels.Buffer // Ptrs[r] is rank r's buffer mapped here
	InBytes, OutBytes uint64           // allocation sizes
	Layout            Layout           // which ranks share a host (algorithms pick peers by it)
}

// LaunchArgs describe one collective call. Offsets are into the shared buffers, the same on
// every rank (the harness shifts them between iterations, as nccl-tests does).
type LaunchArgs struct {
	Type      Datatype
	Op        Op
	Count     int64  // elements per rank's input (allgather: send count; allreduce: count)
	SendBytes uint64 // bytes each rank contributes
	RecvBytes uint64 // bytes each rank receives in total
	InPlace   bool
	// Input is at In+InOff, or Out+InOff when InPlace; output is at Out+OutOff.
	InOff, OutOff uint64
}

// InPtr returns rank r's input buffer as mapped here.
func (e *Env) InPtr(a *LaunchArgs, r int) device.Ptr {
	if a.InPlace {
		return e.Out.Ptrs[r].Add(a.InOff)
	}
	return e.In.Ptrs[r].Add(a.InOff)
}

// OutPtr returns rank r's output buffer as mapped here.
func (e *Env) OutPtr(a *LaunchArgs, r int) device.Ptr { return e.Out.Ptrs[r].Add(a.OutOff) }

// Instance is an algorithm set up for a run.
type Instance interface {
	// Launch enqueues one collective on s. It must be capturable in a CUDA graph: its state
	// between calls lives in device memory, not in kernel arguments.
	Launch(a *LaunchArgs, s device.Stream) error
	Close() error
}
