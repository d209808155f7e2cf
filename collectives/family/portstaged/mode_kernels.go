package portstaged

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// modeKernels are the kernels one collective's launches run, for portput and hostput alike:
// the copy kernel, or, for the modes that reduce, one kernel per type and operator.
type modeKernels[A any] struct {
	mode    PortStagedMode
	copyK   params.Kernel[A]
	reduceK *algo.TypedKernels[A]
}

// loadModeKernels looks up mode's kernels: the reducing family for reducescatter, reduce
// and allreduce, the copy kernel for the others.
func loadModeKernels[A any](g device.GPU, mode PortStagedMode, copyF params.Func[A], reduceF params.Family[A]) (modeKernels[A], error) {
	m := modeKernels[A]{mode: mode}
	var err error
	if mode == PSReduceScatter || mode == PSReduce || mode == PSAllreduce {
		m.reduceK, err = algo.LoadTyped(g, reduceF, nil)
	} else {
		m.copyK, err = copyF.Load(g)
	}
	return m, err
}

// pick returns launch l's kernel and the bytes rank copies or reduces into its output
// (what the grid is sized for: none on a rank that is not the root of reduce or gather).
func (m modeKernels[A]) pick(l *collectives.LaunchArgs, rank int) (params.Kernel[A], uint64, error) {
	work := l.RecvBytes
	if (m.mode == PSReduce || m.mode == PSGather) && rank != l.Root {
		work = 0
	}
	if m.reduceK == nil {
		return m.copyK, work, nil
	}
	k, err := m.reduceK.Get(l.Type, l.Op)
	return k, work, err
}
