package all

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allreduce"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/collectivestest"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/cproto"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// cElement describes the C element types of MB_FOR_EACH_TYPE.
var cElement = map[string]struct {
	size          int
	float, signed bool
}{
	"int8_t": {1, false, true}, "uint8_t": {1, false, false}, "int32_t": {4, false, true},
	"uint32_t": {4, false, false}, "int64_t": {8, false, true}, "uint64_t": {8, false, false},
	"__half": {2, true, true}, "float": {4, true, true}, "double": {8, true, true}, "__nv_bfloat16": {2, true, true},
}

// instances lists, per family, the element types it is instantiated for (in source
// order) and the operators of each type.
type instances struct {
	types []string
	ops   map[string][]string
	elem  map[string]string // type → the C type of the first parameter (a T* buffer)
}

func familyInstances(ks []cproto.Kernel, prefix string) instances {
	in := instances{ops: map[string][]string{}, elem: map[string]string{}}
	for _, k := range ks {
		rest, ok := strings.CutPrefix(k.Name, prefix+"_")
		typ, op, ok2 := strings.Cut(rest, "_")
		if !ok || !ok2 || strings.Contains(op, "_") {
			continue
		}
		if len(in.types) == 0 || in.types[len(in.types)-1] != typ {
			in.types = append(in.types, typ)
		}
		in.ops[typ] = append(in.ops[typ], op)
		if len(k.Params) > 0 {
			in.elem[typ] = k.Params[0].Type
		}
	}
	return in
}

// checkFamilies compares every kernel family's instances with the Go lists: every type of
// Datatypes (allreduce_ll8: the ll8 algorithm's types) times every operator of Ops.
func checkFamilies(ks []cproto.Kernel, types []collectives.Datatype, ops []collectives.Op, ll8 []string) []string {
	var errs []string
	var all, opNames []string
	for _, d := range types {
		all = append(all, d.Name)
	}
	for _, o := range ops {
		opNames = append(opNames, string(o))
	}
	sorted := func(s []string) string {
		c := slices.Clone(s)
		slices.Sort(c)
		return strings.Join(c, ",")
	}
	for _, d := range params.Decls() {
		if !d.Family {
			continue
		}
		want := all
		if d.Name == allreduce.AllreduceLL8.Prefix() {
			want = ll8
		}
		in := familyInstances(ks, d.Name)
		if !reflect.DeepEqual(in.types, want) {
			errs = append(errs, fmt.Sprintf("%s is instantiated for types %v, Go expects %v", d.Name, in.types, want))
		}
		for _, typ := range in.types {
			if sorted(in.ops[typ]) != sorted(opNames) {
				errs = append(errs, fmt.Sprintf("%s for %s is instantiated for ops %v, Go has %v", d.Name, typ, in.ops[typ], opNames))
			}
		}
	}
	return errs
}

func readKernels(t *testing.T) []cproto.Kernel {
	t.Helper()
	ks, err := cproto.ReadTree("../..")
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// TestKernelTypes: the kernels are instantiated for exactly the element types of
// Datatypes (in its order, the C type of each of its size, sign and kind) and the operators
// of Ops; allreduce_ll8 for exactly the ll8 algorithm's types.
func TestKernelTypes(t *testing.T) {
	ks := readKernels(t)
	ll8, err := collectives.Find("allreduce", "ll8")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range checkFamilies(ks, collectives.Datatypes, collectives.Ops, ll8.Types) {
		t.Error(e)
	}
	fill := familyInstances(ks, params.Fill.Prefix())
	for _, d := range collectives.Datatypes {
		c, ok := cElement[fill.elem[d.Name]]
		switch {
		case !ok:
			t.Errorf("%s: fill's buffer has C type %q, not a known element type", d.Name, fill.elem[d.Name])
		case c.size != d.Size || c.float != d.Float() || c.signed != d.Signed():
			t.Errorf("%s: C type %s is %d bytes (float %v, signed %v); Go says %d bytes (float %v, signed %v)",
				d.Name, fill.elem[d.Name], c.size, c.float, c.signed, d.Size, d.Float(), d.Signed())
		}
	}
}

// TestKernelTypesCatchDrift: the family check fails when either side's list changes.
func TestKernelTypesCatchDrift(t *testing.T) {
	ks := readKernels(t)
	ll8, err := collectives.Find("allreduce", "ll8")
	if err != nil {
		t.Fatal(err)
	}
	extra := append(append([]collectives.Datatype(nil), collectives.Datatypes...), collectives.Datatype{Name: "float8", Size: 1})
	tests := []struct {
		name  string
		types []collectives.Datatype
		ops   []collectives.Op
		ll8   []string
		want  string
	}{
		{"type added in Go", extra, collectives.Ops, ll8.Types, "allreduce_rsag is instantiated for types"},
		{"type dropped in Go", collectives.Datatypes[1:], collectives.Ops, ll8.Types, "fill is instantiated for types"},
		{"op added in Go", collectives.Datatypes, append(append([]collectives.Op(nil), collectives.Ops...), "xor"), ll8.Types, "allreduce_port for int8 is instantiated for ops"},
		{"ll8 type added in Go", collectives.Datatypes, collectives.Ops, append(append([]string(nil), ll8.Types...), "int64"), "allreduce_ll8 is instantiated for types"},
	}
	for _, tt := range tests {
		errs := checkFamilies(ks, tt.types, tt.ops, tt.ll8)
		if !strings.Contains(strings.Join(errs, "\n"), tt.want) {
			t.Errorf("%s: errors %q do not contain %q", tt.name, errs, tt.want)
		}
	}
}

// kernelNames is a device.GPU stand-in that hands out a kernel handle per name.
type kernelNames struct {
	device.GPU
	names []string
}

func (g *kernelNames) Kernel(name string) (device.Kernel, error) {
	g.names = append(g.names, name)
	return device.Kernel(len(g.names)), nil
}

// TestLoadTyped: an instance looks every kernel up once, and a launch finds the one for
// its type and operator by index; a type the algorithm does not run has none.
func TestLoadTyped(t *testing.T) {
	g := &kernelNames{}
	k, err := algo.LoadTyped(g, allreduce.AllreduceLL8, []string{"half", "int8"})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.names) != 2*len(collectives.Ops) {
		t.Fatalf("looked up %d kernels, want %d: %v", len(g.names), 2*len(collectives.Ops), g.names)
	}
	for _, tt := range []struct {
		typ  string
		op   collectives.Op
		want string
	}{
		{"half", collectives.OpSum, "allreduce_ll8_half_sum"},
		{"half", collectives.OpAvg, "allreduce_ll8_half_avg"},
		{"int8", collectives.OpMin, "allreduce_ll8_int8_min"},
	} {
		got, err := k.Get(collectivestest.MustType(t, tt.typ), tt.op)
		if err != nil || got.Name() != tt.want {
			t.Errorf("get(%s, %s) = %q, %v; want %s", tt.typ, tt.op, got.Name(), err, tt.want)
		}
	}
	if got, err := k.Get(collectivestest.MustType(t, "float"), collectives.OpSum); err == nil {
		t.Errorf("get(float) = %q, want an error (not loaded)", got.Name())
	}
	if got, err := k.Get(collectivestest.MustType(t, "half"), collectives.OpNone); err == nil {
		t.Errorf("get(half, none) = %q, want an error", got.Name())
	}
	if got, err := k.Get(collectives.Datatype{Name: "half", Size: 2}, collectives.OpSum); err == nil {
		t.Errorf("get of a Datatype not from the table = %q, want an error", got.Name())
	}
	if _, err := algo.LoadTyped(g, allreduce.AllreduceRSAG, []string{"float9"}); err == nil {
		t.Error("loadTyped accepted an unknown type")
	}
}
