package collectives

import "fmt"

// Datatype is an element type, named as nccl-tests names it.
type Datatype struct {
	Name string
	Size int
}

// Datatypes in nccl-tests' order; kernels are instantiated for each (reduce_device.cuh).
var Datatypes = []Datatype{
	{"int8", 1}, {"uint8", 1}, {"int32", 4}, {"uint32", 4}, {"int64", 8}, {"uint64", 8},
	{"half", 2}, {"float", 4}, {"double", 8}, {"bfloat16", 2},
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
