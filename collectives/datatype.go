package collectives

import "fmt"

// Datatype is an element type, named as nccl-tests names it.
type Datatype struct {
	Name string
	Size int
	ID   int // 1 + its index in Datatypes (0: not from the table)
}

// Datatypes in nccl-tests' order: the one list of element types. The CLI offers these,
// and kernels are instantiated for each (MB_FOR_EACH_TYPE in reduce_device.cuh;
// TestKernelTypes checks that list against this one).
var Datatypes = numbered([]Datatype{
	{Name: "int8", Size: 1}, {Name: "uint8", Size: 1}, {Name: "int32", Size: 4}, {Name: "uint32", Size: 4},
	{Name: "int64", Size: 8}, {Name: "uint64", Size: 8}, {Name: "half", Size: 2}, {Name: "float", Size: 4},
	{Name: "double", Size: 8}, {Name: "bfloat16", Size: 2},
})

func numbered(ds []Datatype) []Datatype {
	for i := range ds {
		ds[i].ID = i + 1
	}
	return ds
}

// DatatypeNames lists the names of Datatypes.
func DatatypeNames() []string {
	out := make([]string, len(Datatypes))
	for i, d := range Datatypes {
		out[i] = d.Name
	}
	return out
}

// LookupDatatype finds a type by name.
func LookupDatatype(name string) (Datatype, error) {
	for _, d := range Datatypes {
		if d.Name == name {
			return d, nil
		}
	}
	return Datatype{}, fmt.Errorf("unknown datatype %q", name)
}

// Float reports whether the type is a floating-point type.
func (d Datatype) Float() bool {
	return d.Name == "half" || d.Name == "float" || d.Name == "double" || d.Name == "bfloat16"
}

// Signed reports whether the type holds negative values.
func (d Datatype) Signed() bool {
	switch d.Name {
	case "uint8", "uint32", "uint64":
		return false
	}
	return true
}

// Op is a reduction operator; "none" for collectives without one.
type Op string

// Reduction operators.
const (
	OpNone Op = "none"
	OpSum  Op = "sum"
	OpProd Op = "prod"
	OpMin  Op = "min"
	OpMax  Op = "max"
	OpAvg  Op = "avg"
)

// Ops lists every reduction operator in nccl-tests' order: the one list of them (kernels:
// MB_FOR_EACH_OP in reduce_device.cuh, checked by TestKernelTypes).
var Ops = []Op{OpSum, OpProd, OpMax, OpMin, OpAvg}

// OpNames lists the names of Ops.
func OpNames() []string {
	out := make([]string, len(Ops))
	for i, o := range Ops {
		out[i] = string(o)
	}
	return out
}

// Index returns the operator's position in Ops, or -1.
func (o Op) Index() int {
	for i, x := range Ops {
		if x == o {
			return i
		}
	}
	return -1
}
