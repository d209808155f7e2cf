package all

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives/allreduce"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/cproto"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// cKinds maps the C parameter types the kernels use to kinds (pointers aside).
var cKinds = map[string]params.Kind{"uint64_t": params.Uint64, "uint32_t": params.Uint32, "int": params.Int32}

// match finds the declaration a C kernel belongs to: the kernel's own, or the family whose
// name is the kernel's up to _<type>_<op>.
func match(decls []params.Decl, name string) (params.Decl, bool) {
	for _, d := range decls {
		if !d.Family && d.Name == name {
			return d, true
		}
	}
	for _, d := range decls {
		rest, ok := strings.CutPrefix(name, d.Name+"_")
		if d.Family && ok && strings.Count(rest, "_") == 1 && !strings.HasPrefix(rest, "_") && !strings.HasSuffix(rest, "_") {
			return d, true
		}
	}
	return params.Decl{}, false
}

// check compares declarations with the C kernels and returns every difference (for a
// family, the first kernel that shows it).
func check(decls []params.Decl, kernels []cproto.Kernel) []string {
	var errs []string
	seen := map[string]bool{}
	report := func(d params.Decl, k cproto.Kernel, format string, args ...any) {
		key := d.Name + ": " + fmt.Sprintf(format, args...)
		if d.Family {
			key = strings.ReplaceAll(key, k.Name, d.Name+"_<type>_<op>")
		}
		if !seen[key] {
			seen[key] = true
			errs = append(errs, k.File+": "+fmt.Sprintf(format, args...))
		}
	}
	used := map[string]bool{}
	for _, k := range kernels {
		d, ok := match(decls, k.Name)
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: kernel %s has no declaration in Go (kernels/params or a *_params.go)", k.File, k))
			continue
		}
		used[d.Name] = true
		if len(k.Params) != len(d.Params) {
			report(d, k, "%s has %d parameters, its Go declaration %s %d", k, len(k.Params), d.Name, len(d.Params))
			continue
		}
		for i, cp := range k.Params {
			gp := d.Params[i]
			want, ok := cKinds[cp.Type]
			if cp.Pointer {
				want, ok = params.Pointer, true
			}
			switch {
			case !ok:
				report(d, k, "%s parameter %d (%s): C type %s has no Go kind", k.Name, i, cp.Name, cp.Type)
			case !strings.EqualFold(cp.Name, gp.Name):
				report(d, k, "%s parameter %d is %s in C, %s in Go", k.Name, i, cp.Name, gp.Name)
			case want != gp.Kind:
				report(d, k, "%s parameter %d (%s) is a %s in C, a %s in Go", k.Name, i, cp.Name, want, gp.Kind)
			}
		}
	}
	for _, d := range decls {
		if !used[d.Name] {
			what := "kernel"
			if d.Family {
				what = "family"
			}
			errs = append(errs, fmt.Sprintf("%s %s is declared in Go but is in no .cu file", what, d.Name))
		}
	}
	return errs
}

// TestPrototypesMatch: every kernel of every .cu file (kernels/, collectives/) has a Go declaration with the same
// parameters, and every declaration has its kernel.
func TestPrototypesMatch(t *testing.T) {
	ks := readKernels(t)
	for _, e := range check(params.Decls(), ks) {
		t.Error(e)
	}
}

// TestCheckCatchesDrift: the comparison fails for each way a declaration can drift.
func TestCheckCatchesDrift(t *testing.T) {
	ks := readKernels(t)
	find := func(name string) params.Decl {
		for _, d := range params.Decls() {
			if d.Name == name {
				return d
			}
		}
		t.Fatalf("no declaration %s", name)
		return params.Decl{}
	}
	mutate := func(name string, f func(*params.Decl)) []params.Decl {
		var out []params.Decl
		for _, d := range params.Decls() {
			if d.Name == name {
				d.Params = append([]params.Param(nil), d.Params...)
				f(&d)
			}
			out = append(out, d)
		}
		return out
	}
	rsag := find("allreduce_rsag")
	last := len(rsag.Params) - 1
	tests := []struct {
		name  string
		decls []params.Decl
		want  string
	}{
		{"swapped", mutate("allreduce_rsag", func(d *params.Decl) { d.Params[2], d.Params[3] = d.Params[3], d.Params[2] }), "allreduce_rsag_int8_sum parameter 2 is in in C, Out in Go"},
		{"missing", mutate("allgather_put", func(d *params.Decl) { d.Params = d.Params[:len(d.Params)-1] }), "its Go declaration allgather_put"},
		{"kind", mutate("allreduce_rsag", func(d *params.Decl) { d.Params[last-1].Kind = params.Uint64 }), "is a uint32_t in C, a uint64_t in Go"},
		{"pointer", mutate("poison", func(d *params.Decl) { d.Params[0].Kind = params.Uint64 }), "poison parameter 0 (buf) is a pointer in C"},
		{"renamed", mutate("poison", func(d *params.Decl) { d.Name = "poison2" }), "kernel poison(uint8_t* buf, uint64_t bytes) has no declaration"},
		{"no kernel", append(params.Decls(), params.Decl{Name: "allreduce_ll4", Family: true}), "family allreduce_ll4 is declared in Go but is in no .cu file"},
	}
	for _, tt := range tests {
		errs := check(tt.decls, ks)
		if !strings.Contains(strings.Join(errs, "\n"), tt.want) {
			t.Errorf("%s: errors %q do not contain %q", tt.name, errs, tt.want)
		}
	}
}

// fakeGPU records launches.
type fakeGPU struct {
	device.GPU
	names  map[device.Kernel]string
	launch [][]uint64
}

func (f *fakeGPU) Kernel(name string) (device.Kernel, error) {
	k := device.Kernel(len(f.names) + 1)
	f.names[k] = name
	return k, nil
}

func (f *fakeGPU) Launch(k device.Kernel, d device.Dim, s device.Stream, args ...uint64) error {
	f.launch = append(f.launch, append([]uint64{uint64(k)}, args...))
	return nil
}

// TestLaunchSlots: every field goes into its own slot, in order, 32-bit ones zero-extended.
func TestLaunchSlots(t *testing.T) {
	g := &fakeGPU{names: map[device.Kernel]string{}}
	k, err := allreduce.AllreducePort.Load(g, "float", "sum")
	if err != nil {
		t.Fatal(err)
	}
	if k.Name() != "allreduce_port_float_sum" {
		t.Fatalf("loaded %q", k.Name())
	}
	a := allreduce.AllreducePortArgs{RSChans: 1, OutChans: 2, Scratch: 3, SlotBytes: 4, In: 5, Out: 6, InOff: 7, OutOff: 8,
		Count: 1 << 40, PieceBytes: 10, Rank: 0xffffffff, NRanks: 12, State: 13}
	if err := k.Launch(device.Dim{Grid: 1, Block: 1}, 0, &a); err != nil {
		t.Fatal(err)
	}
	s, err := params.SignalArgs{}, error(nil)
	sk, err := params.PingPongMemorySignal.Load(g)
	if err != nil {
		t.Fatal(err)
	}
	s = params.SignalArgs{Ch: 0xabc, Iters: -1, Initiator: 1}
	if err := sk.Launch(device.Dim{Grid: 1, Block: 1}, 0, &s); err != nil {
		t.Fatal(err)
	}
	want := [][]uint64{
		{1, 1, 2, 3, 4, 5, 6, 7, 8, 1 << 40, 10, 0xffffffff, 12, 13},
		{2, 0xabc, 0xffffffff, 1},
	}
	if fmt.Sprint(g.launch) != fmt.Sprint(want) {
		t.Errorf("launched %v, want %v", g.launch, want)
	}
	var never params.Kernel[params.PoisonArgs]
	if err := never.Launch(device.Dim{}, 0, &params.PoisonArgs{}); err == nil {
		t.Error("a kernel never loaded launched")
	}
}
