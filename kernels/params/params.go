// Package params is how Go declares, once, every kernel it launches: its name and its
// parameters, as the fields of a Go struct in the C prototype's order (DeclareFunc,
// DeclareFamily). The declarations live beside their .cu files: here for kernels/*.cu
// (verification, ping-pong and channel-test kernels), in each collective's *_params.go for
// its own. A kernel is launched only through its declaration (Kernel.Launch takes that
// struct), and a CPU test (collectives/all/params_test.go) reads the preprocessed .cu
// sources and fails when a prototype and its declaration differ in name, number, order or
// kind of parameters, or when either side has a kernel the other lacks.
//
// Field types give the C kind: device.Ptr for any pointer, uint64 for uint64_t, uint32 for
// uint32_t, int32 for int. Field names are the C parameter names, capitalised (compared
// without regard to case).
package params

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Kind is the C type class of a kernel parameter.
type Kind int

// Parameter kinds and the Go field types that declare them.
const (
	Pointer Kind = iota + 1 // T*: device.Ptr
	Uint64                  // uint64_t: uint64
	Uint32                  // uint32_t: uint32
	Int32                   // int: int32
)

func (k Kind) String() string {
	switch k {
	case Pointer:
		return "pointer"
	case Uint64:
		return "uint64_t"
	case Uint32:
		return "uint32_t"
	case Int32:
		return "int"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Param is one declared parameter.
type Param struct {
	Name string // the Go field name
	Kind Kind
}

// Decl is one declaration: a kernel, or a family of kernels named Name_<type>_<op>, one per
// element type and reduction operator, that all take the same parameters.
type Decl struct {
	Name   string
	Family bool
	Params []Param
}

// MaxParams is the most parameters a kernel may take (device.GPU.Launch's limit).
const MaxParams = 20

// field is where one parameter lives in its Go struct.
type field struct {
	off  uintptr
	wide bool // 8 bytes (else 4)
}

var decls []Decl

// Decls returns every declaration, in the order they were made.
func Decls() []Decl { return append([]Decl(nil), decls...) }

var (
	ptrType = reflect.TypeOf(device.Ptr(0))
	kinds   = map[reflect.Type]Kind{
		ptrType:                   Pointer,
		reflect.TypeOf(uint64(0)): Uint64,
		reflect.TypeOf(uint32(0)): Uint32,
		reflect.TypeOf(int32(0)):  Int32,
	}
)

// declare records the parameters of A (a struct of the four field types above) and returns
// where each field lives. A bad struct is a mistake in this package, caught at start-up.
func declare[A any](name string, family bool) []field {
	t := reflect.TypeOf((*A)(nil)).Elem()
	if t.Kind() != reflect.Struct || t.NumField() > MaxParams {
		panic(fmt.Sprintf("params: %s: %v is not a struct of at most %d fields", name, t, MaxParams))
	}
	d := Decl{Name: name, Family: family}
	var fs []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		k, ok := kinds[f.Type]
		if !ok {
			panic(fmt.Sprintf("params: %s: field %s has type %v; want device.Ptr, uint64, uint32 or int32", name, f.Name, f.Type))
		}
		d.Params = append(d.Params, Param{f.Name, k})
		fs = append(fs, field{f.Offset, f.Type.Size() == 8})
	}
	decls = append(decls, d)
	return fs
}

// Func is a kernel whose parameters are the fields of A.
type Func[A any] struct {
	name   string
	fields []field
}

// DeclareFunc declares kernel name, whose parameters are A's fields; each package that
// holds a .cu file declares its kernels so, beside it (*_params.go).
func DeclareFunc[A any](name string) Func[A] { return Func[A]{name, declare[A](name, false)} }

// Name returns the kernel's name.
func (f Func[A]) Name() string { return f.name }

// Load looks the kernel up on g.
func (f Func[A]) Load(g device.GPU) (Kernel[A], error) { return load[A](g, f.name, f.fields) }

// Family is a set of kernels named Prefix_<type>_<op>, one per element type and reduction
// operator (MB_FOR_EACH_TYPE and MB_FOR_EACH_OP in reduce_device.cuh), with A's parameters.
type Family[A any] struct {
	prefix string
	fields []field
}

// DeclareFamily declares the family of kernels prefix_<type>_<op>, whose parameters are
// A's fields; each package that holds a .cu file declares its families so, beside it.
func DeclareFamily[A any](prefix string) Family[A] {
	return Family[A]{prefix, declare[A](prefix, true)}
}

// Prefix returns the family's name prefix.
func (f Family[A]) Prefix() string { return f.prefix }

// Load looks up the family's kernel for one element type and operator on g.
func (f Family[A]) Load(g device.GPU, typ, op string) (Kernel[A], error) {
	return load[A](g, f.prefix+"_"+typ+"_"+op, f.fields)
}

// Kernel is a kernel looked up on one GPU, ready to launch. Look it up once (when an
// algorithm is set up), launch it many times.
type Kernel[A any] struct {
	gpu    device.GPU
	fn     device.Kernel
	name   string
	fields []field
}

func load[A any](g device.GPU, name string, fields []field) (Kernel[A], error) {
	fn, err := g.Kernel(name)
	if err != nil {
		return Kernel[A]{}, err
	}
	return Kernel[A]{gpu: g, fn: fn, name: name, fields: fields}, nil
}

// Name returns the kernel's name ("" for a Kernel never loaded).
func (k Kernel[A]) Name() string { return k.name }

// Launch enqueues the kernel on s with the arguments in a. Each parameter travels in an
// 8-byte slot; a kernel reads as many low bytes as its C parameter has.
func (k Kernel[A]) Launch(d device.Dim, s device.Stream, a *A) error {
	if k.gpu == nil {
		return fmt.Errorf("launch: kernel not loaded")
	}
	var slots [MaxParams]uint64
	p := unsafe.Pointer(a)
	for i, f := range k.fields {
		if f.wide {
			slots[i] = *(*uint64)(unsafe.Add(p, f.off))
		} else {
			slots[i] = uint64(*(*uint32)(unsafe.Add(p, f.off)))
		}
	}
	if err := k.gpu.Launch(k.fn, d, s, slots[:len(k.fields)]...); err != nil {
		return fmt.Errorf("launch %s: %w", k.name, err)
	}
	return nil
}

// Loader looks kernels up on one GPU and keeps the first error, so that a series of
// look-ups needs one check.
type Loader struct {
	GPU device.GPU
	Err error
}

// Load looks f up with l (nothing once l has failed).
func Load[A any](l *Loader, f Func[A]) Kernel[A] {
	if l.Err != nil {
		return Kernel[A]{}
	}
	k, err := f.Load(l.GPU)
	l.Err = err
	return k
}
