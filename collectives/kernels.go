package collectives

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// verifyKernels are the kernels of kernels/verify.cu, looked up at a Verifier's first use; the
// typed fill and check kernels one type and operator at a time, as a run first needs them
// (a run of one type never looks up the others).
type verifyKernels struct {
	gpu          device.GPU
	poison       params.Kernel[params.PoisonArgs]
	fillPattern  params.Kernel[params.FillPatternArgs]
	checkPattern params.Kernel[params.CheckPatternArgs]
	fill         map[typeOp]params.Kernel[params.FillArgs]
	fillMixed    map[typeOp]params.Kernel[params.FillArgs]
	check        map[typeOp]params.Kernel[params.CheckArgs]
}

// typeOp keys a typed kernel.
type typeOp struct {
	dt string
	op Op
}

func loadVerifyKernels(g device.GPU) (*verifyKernels, error) {
	ld := &params.Loader{GPU: g}
	k := &verifyKernels{
		gpu:          g,
		poison:       params.Load(ld, params.Poison),
		fillPattern:  params.Load(ld, params.FillPattern),
		checkPattern: params.Load(ld, params.CheckPattern),
		fill:         map[typeOp]params.Kernel[params.FillArgs]{},
		fillMixed:    map[typeOp]params.Kernel[params.FillArgs]{},
		check:        map[typeOp]params.Kernel[params.CheckArgs]{},
	}
	return k, ld.Err
}

// typed returns f's kernel for dt and op from cache, looking it up on g the first time.
func typed[A any](g device.GPU, cache map[typeOp]params.Kernel[A], f params.Family[A], dt Datatype, op Op) (params.Kernel[A], error) {
	key := typeOp{dt.Name, op}
	if k, ok := cache[key]; ok {
		return k, nil
	}
	k, err := f.Load(g, dt.Name, string(op))
	if err != nil {
		return k, err
	}
	cache[key] = k
	return k, nil
}
