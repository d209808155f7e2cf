package algo

import (
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// TypedKernels holds one kernel of a family for every element type and operator an
// algorithm runs, looked up once when the algorithm is set up, so that a launch only
// indexes a table.
type TypedKernels[A any] struct {
	family string
	byType [][]params.Kernel[A] // [Datatype.id-1][Op.index()]; nil rows: types not loaded
}

// LoadTyped looks up f's kernels for every operator and each of types (nil: every type).
func LoadTyped[A any](g device.GPU, f params.Family[A], types []string) (*TypedKernels[A], error) {
	if types == nil {
		types = collectives.DatatypeNames()
	}
	t := &TypedKernels[A]{family: f.Prefix(), byType: make([][]params.Kernel[A], len(collectives.Datatypes))}
	for _, name := range types {
		dt, err := collectives.LookupDatatype(name)
		if err != nil {
			return nil, fmt.Errorf("kernels %s: %w", f.Prefix(), err)
		}
		row := make([]params.Kernel[A], len(collectives.Ops))
		for j, op := range collectives.Ops {
			if row[j], err = f.Load(g, dt.Name, string(op)); err != nil {
				return nil, err
			}
		}
		t.byType[dt.ID-1] = row
	}
	return t, nil
}

// Get returns the kernel for one type and operator.
func (t *TypedKernels[A]) Get(dt collectives.Datatype, op collectives.Op) (params.Kernel[A], error) {
	i, j := dt.ID-1, op.Index()
	if i < 0 || i >= len(t.byType) || t.byType[i] == nil || j < 0 {
		return params.Kernel[A]{}, fmt.Errorf("no %s kernel for type %s and op %s", t.family, dt.Name, op)
	}
	return t.byType[i][j], nil
}
