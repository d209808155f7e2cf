package collectives

import (
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// typedKernels holds one kernel of a family for every element type and operator an
// algorithm runs, looked up once when the algorithm is set up, so that a launch only
// indexes a table.
type typedKernels[A any] struct {
	family string
	byType [][]params.Kernel[A] // [Datatype.id-1][Op.index()]; nil rows: types not loaded
}

// loadTyped looks up f's kernels for every operator and each of types (nil: every type).
func loadTyped[A any](g device.GPU, f params.Family[A], types []string) (*typedKernels[A], error) {
	if types == nil {
		types = DatatypeNames()
	}
	t := &typedKernels[A]{family: f.Prefix(), byType: make([][]params.Kernel[A], len(Datatypes))}
	for _, name := range types {
		dt, err := LookupDatatype(name)
		if err != nil {
			return nil, fmt.Errorf("kernels %s: %w", f.Prefix(), err)
		}
		row := make([]params.Kernel[A], len(Ops))
		for j, op := range Ops {
			if row[j], err = f.Load(g, dt.Name, string(op)); err != nil {
				return nil, err
			}
		}
		t.byType[dt.id-1] = row
	}
	return t, nil
}

// get returns the kernel for one type and operator.
func (t *typedKernels[A]) get(dt Datatype, op Op) (params.Kernel[A], error) {
	i, j := dt.id-1, op.index()
	if i < 0 || i >= len(t.byType) || t.byType[i] == nil || j < 0 {
		return params.Kernel[A]{}, fmt.Errorf("no %s kernel for type %s and op %s", t.family, dt.Name, op)
	}
	return t.byType[i][j], nil
}

// verifyKernels are the kernels of verify.cu, looked up at a Verifier's first use; the
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
