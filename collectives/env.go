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

// LaunchArgs describe one collective call. Buffers are the harness's shared ones; the
// harness shifts every rank's offsets by the same Shift between iterations, as nccl-tests
// does.
type LaunchArgs struct {
	Type      Datatype
	Op        Op
	Root      int    // the root rank, for collectives that have one (Collective.HasRoot)
	Count     int64  // elements of each rank's input (Counts.Send)
	Param     int64  // the report's count (Counts.Param)
	SendBytes uint64 // bytes each rank sends
	RecvBytes uint64 // bytes each rank receives
	InPlace   bool
	Shift     uint64 // this iteration's offset into both buffers
	// In place, rank r's input is at Out+Shift+r*SendInPlace and its output at
	// Out+Shift+r*RecvInPlace (Counts.SendInPlace and RecvInPlace, in bytes).
	SendInPlace, RecvInPlace uint64
	// This rank's input is at In+InOff (in place: Out+InOff); its output at Out+OutOff.
	InOff, OutOff uint64
}

// InOffOf returns rank r's input offset (into In, or Out in place).
func (a *LaunchArgs) InOffOf(r int) uint64 {
	if a.InPlace {
		return a.Shift + uint64(r)*a.SendInPlace
	}
	return a.Shift
}

// OutOffOf returns rank r's output offset into Out.
func (a *LaunchArgs) OutOffOf(r int) uint64 {
	if a.InPlace {
		return a.Shift + uint64(r)*a.RecvInPlace
	}
	return a.Shift
}

// InPtr returns rank r's input buffer as mapped here.
func (e *Env) InPtr(a *LaunchArgs, r int) device.Ptr {
	if a.InPlace {
		return e.Out.Ptrs[r].Add(a.InOffOf(r))
	}
	return e.In.Ptrs[r].Add(a.InOffOf(r))
}

// OutPtr returns rank r's output buffer as mapped here.
func (e *Env) OutPtr(a *LaunchArgs, r int) device.Ptr { return e.Out.Ptrs[r].Add(a.OutOffOf(r)) }

// Instance is an algorithm set up for a run.
type Instance interface {
	// Launch enqueues one collective on s. It must be capturable in a CUDA graph: its state
	// between calls lives in device memory, not in kernel arguments.
	Launch(a *LaunchArgs, s device.Stream) error
	Close() error
}
