package all

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
)

func AlgNames(algs []*collectives.Algorithm) []string {
	var out []string
	for _, a := range algs {
		out = append(out, a.Name)
	}
	return out
}

// SweepSizes is 0 and every power of two up to 4 GiB.
func SweepSizes() []int64 {
	out := []int64{0}
	for s := int64(1); s <= 4<<30; s *= 2 {
		out = append(out, s)
	}
	return out
}

func TestRegistryWellFormed(t *testing.T) {
	want := map[string][]string{
		"allgather": {"ll16", "put", "get", "port", "blockput", "portput", "hier", "hostput", "railput", "hostoneshot", "local"},
		"allreduce": {"ll8", "ll16", "ll16x2", "rsag", "port", "portrsag", "hier", "portoneshot", "hostoneshot", "hostput", "railput", "railrsag", "hostrsag", "local"},
	}
	for coll, names := range want {
		algs := collectives.Algorithms(coll)
		if got := strings.Join(AlgNames(algs), ","); got != strings.Join(names, ",") {
			t.Errorf("Algorithms(%s) = %s, want %s (ordered by number)", coll, got, strings.Join(names, ","))
		}
		seenName, seenNum := map[string]bool{}, map[int]bool{}
		for i, a := range algs {
			if a.Collective != coll {
				t.Errorf("%s %s: Collective = %q", coll, a.Name, a.Collective)
			}
			if seenName[a.Name] || seenNum[a.Number] {
				t.Errorf("%s: duplicate name %q or number %d", coll, a.Name, a.Number)
			}
			seenName[a.Name], seenNum[a.Number] = true, true
			if i > 0 && algs[i-1].Number >= a.Number {
				t.Errorf("%s: %s (#%d) listed after %s (#%d)", coll, a.Name, a.Number, algs[i-1].Name, algs[i-1].Number)
			}
			if a.New == nil || a.Doc == "" {
				t.Errorf("%s %s: New or Doc missing", coll, a.Name)
			}
			for _, l := range []collectives.Layout{collectives.OneHostLayout(2), layoutOf(false, "a", "b"), layoutOf(false, "a", "a", "b", "b"),
				layoutOf(false, "a", "a", "a", "a", "b", "b", "b", "b"), layoutOf(false, "a", "a", "b")} {
				if _, hi := a.AutoRange(l); a.MaxBytes > 0 && hi > a.MaxBytes {
					t.Errorf("%s %s: auto range on %v up to %d exceeds MaxBytes %d", coll, a.Name, l, hi, a.MaxBytes)
				}
			}
			for _, ty := range a.Types {
				if _, err := collectives.LookupDatatype(ty); err != nil {
					t.Errorf("%s %s: unknown type %q in Types", coll, a.Name, ty)
				}
			}
		}
	}
}

func TestSelectAuto(t *testing.T) {
	for _, coll := range []string{"allgather", "allreduce"} {
		for _, nranks := range []int{1, 2, 8} {
			for _, dt := range collectives.Datatypes {
				for _, size := range SweepSizes() {
					algs, err := collectives.Select(coll, "auto", size, nranks, dt.Name)
					if err != nil {
						t.Errorf("Select(%s, auto, %d, %d ranks, %s): %v", coll, size, nranks, dt.Name, err)
						continue
					}
					if len(algs) != 1 {
						t.Errorf("Select(%s, auto, %d, %d ranks, %s) = %v, want one algorithm", coll, size, nranks, dt.Name, AlgNames(algs))
						continue
					}
					a := algs[0]
					if err := a.Supports(size, nranks, dt.Name); err != nil {
						t.Errorf("Select(%s, auto, %d, %d ranks, %s) chose %s, which does not support it: %v", coll, size, nranks, dt.Name, a.Name, err)
					}
					if nranks == 1 && a.Name != "local" {
						t.Errorf("Select(%s, auto, %d, 1 rank, %s) = %s, want local", coll, size, dt.Name, a.Name)
					}
					if nranks > 1 && a.Name == "local" {
						t.Errorf("Select(%s, auto, %d, %d ranks, %s) = local", coll, size, nranks, dt.Name)
					}
					if a.Name == "ll8" && dt.Size == 8 {
						t.Errorf("Select(%s, auto, %d, %d ranks, %s) = ll8 for an 8-byte type", coll, size, nranks, dt.Name)
					}
				}
			}
		}
	}
}

func TestSelectAutoBoundaries(t *testing.T) {
	tests := []struct {
		coll   string
		size   int64
		nranks int
		dtype  string
		want   string
	}{
		{"allgather", 0, 2, "float", "ll16"},
		{"allgather", 1 << 20, 2, "float", "ll16"},
		{"allgather", 1<<20 + 1, 2, "float", "blockput"},
		{"allgather", 64 << 20, 8, "float", "blockput"},
		{"allgather", 64<<20 + 1, 8, "float", "port"},
		{"allgather", 4 << 30, 8, "int8", "port"},
		{"allgather", 1 << 30, 1, "float", "local"},
		{"allreduce", 0, 2, "float", "ll8"},
		{"allreduce", 256 << 10, 2, "float", "ll8"},
		{"allreduce", 256<<10 + 1, 2, "float", "ll16"},
		{"allreduce", 1024, 2, "double", "ll16"},
		{"allreduce", 1024, 2, "int64", "ll16"},
		{"allreduce", 1024, 2, "uint64", "ll16"},
		{"allreduce", 1 << 20, 8, "half", "ll16"},
		{"allreduce", 1<<20 + 1, 8, "half", "rsag"},
		{"allreduce", 128 << 20, 2, "bfloat16", "rsag"},
		{"allreduce", 128<<20 + 1, 2, "bfloat16", "port"},
		{"allreduce", 8, 1, "double", "local"},
	}
	for _, tt := range tests {
		algs, err := collectives.Select(tt.coll, "auto", tt.size, tt.nranks, tt.dtype)
		if err != nil || len(algs) != 1 || algs[0].Name != tt.want {
			t.Errorf("Select(%s, auto, %d, %d ranks, %s) = %v, %v; want %s", tt.coll, tt.size, tt.nranks, tt.dtype, AlgNames(algs), err, tt.want)
		}
	}
}

// TestSelectPlaced: algorithms marked AutoOutOfPlace are auto's choice out of place only;
// in place the next candidate runs, and every other choice is the same in both placements.
func TestSelectPlaced(t *testing.T) {
	tests := []struct {
		coll    string
		size    int64
		out, in string
	}{
		{"alltoall", 256<<20 - 1, "blockput", "blockput"},
		{"alltoall", 256 << 20, "port", "blockput"},
		{"alltoall", 2 << 30, "port", "blockput"},
		{"sendrecv", 128 << 20, "port", "put"},
		{"sendrecv", 1 << 20, "put", "put"},
		{"allgather", 1 << 30, "port", "port"},
	}
	for _, tt := range tests {
		l := collectives.OneHostLayout(2)
		for _, c := range []struct {
			inPlace bool
			want    string
		}{{false, tt.out}, {true, tt.in}} {
			algs, err := collectives.SelectPlaced(tt.coll, "auto", tt.size, l, "float", c.inPlace)
			if err != nil || len(algs) != 1 || algs[0].Name != c.want {
				t.Errorf("SelectPlaced(%s, auto, %d, in place %v) = %v, %v; want %s", tt.coll, tt.size, c.inPlace, AlgNames(algs), err, c.want)
			}
		}
		// a named algorithm runs in both placements, whatever AutoOutOfPlace says
		algs, err := collectives.SelectPlaced(tt.coll, tt.out, tt.size, l, "float", true)
		if err != nil || len(algs) != 1 || algs[0].Name != tt.out {
			t.Errorf("SelectPlaced(%s, %s, %d, in place) = %v, %v; want %s", tt.coll, tt.out, tt.size, AlgNames(algs), err, tt.out)
		}
	}
}

func TestSelectAll(t *testing.T) {
	for _, coll := range []string{"allgather", "allreduce"} {
		for _, nranks := range []int{1, 2, 8} {
			for _, dt := range collectives.Datatypes {
				for _, size := range SweepSizes() {
					algs, err := collectives.Select(coll, "all", size, nranks, dt.Name)
					if err != nil {
						t.Fatalf("Select(%s, all, %d, %d, %s): %v", coll, size, nranks, dt.Name, err)
					}
					var want []string
					for _, a := range collectives.Algorithms(coll) {
						if a.Supports(size, nranks, dt.Name) == nil && a.Fits(collectives.OneHostLayout(nranks)) == nil {
							want = append(want, a.Name)
						}
					}
					if got := AlgNames(algs); strings.Join(got, ",") != strings.Join(want, ",") {
						t.Errorf("Select(%s, all, %d, %d, %s) = %v, want %v", coll, size, nranks, dt.Name, got, want)
					}
				}
			}
		}
	}
	tests := []struct {
		coll   string
		size   int64
		nranks int
		dtype  string
		want   string
	}{
		{"allgather", 1024, 2, "float", "ll16,put,get,port,blockput,portput,hier"},
		{"allgather", 64 << 20, 2, "float", "put,get,port,blockput,portput,hier"}, // ll16 stops at 32 MiB
		{"allgather", 1024, 1, "float", "local"},
		{"allreduce", 1024, 2, "float", "ll8,ll16,ll16x2,rsag,port,portrsag,hier,portoneshot"},
		{"allreduce", 1024, 2, "double", "ll16,ll16x2,rsag,port,portrsag,hier,portoneshot"},
		{"allreduce", 2 << 20, 2, "float", "ll16,ll16x2,rsag,port,portrsag,hier"},
		{"allreduce", 16 << 20, 2, "float", "ll16x2,rsag,port,portrsag,hier"},
		{"allreduce", 1 << 30, 4, "int8", "rsag,port,portrsag,hier"},
		{"allreduce", 1 << 30, 1, "int8", "local"},
	}
	for _, tt := range tests {
		algs, err := collectives.Select(tt.coll, "all", tt.size, tt.nranks, tt.dtype)
		if got := strings.Join(AlgNames(algs), ","); err != nil || got != tt.want {
			t.Errorf("Select(%s, all, %d, %d, %s) = %s, %v; want %s", tt.coll, tt.size, tt.nranks, tt.dtype, got, err, tt.want)
		}
	}
}

func TestSelectByNameAndNumber(t *testing.T) {
	tests := []struct {
		coll, k string
		size    int64
		nranks  int
		dtype   string
		want    string // "" = error
		errHas  string
	}{
		{"allgather", "ll16", 1024, 2, "float", "ll16", ""},
		{"allgather", "0", 1024, 2, "float", "ll16", ""},
		{"allgather", "get", 1 << 30, 8, "float", "get", ""},
		{"allgather", "3", 8, 2, "float", "port", ""},
		{"allgather", "99", 8, 1, "float", "local", ""},
		{"allreduce", "ll8", 1024, 2, "float", "ll8", ""},
		{"allreduce", "0", 1024, 2, "half", "ll8", ""},
		{"allreduce", "ll16x2", 1024, 2, "double", "ll16x2", ""},
		{"allreduce", "4", 1 << 30, 2, "double", "port", ""},
		// unsupported types, sizes and rank counts
		{"allreduce", "ll8", 1024, 2, "double", "", "does not support type double"},
		{"allreduce", "0", 1024, 2, "int64", "", "does not support type int64"},
		{"allreduce", "ll8", 2 << 20, 2, "float", "", "handles 0 to 1048576 bytes"},
		{"allreduce", "ll16", 16 << 20, 2, "float", "", "handles 0 to 8388608 bytes"},
		{"allgather", "ll16", 64 << 20, 2, "float", "", "handles 0 to 33554432 bytes"},
		{"allgather", "local", 1024, 2, "float", "", "does not run on 2 ranks"},
		{"allreduce", "rsag", 1024, 1, "float", "", "does not run on 1 ranks"},
		// unknown kernels
		{"allreduce", "nope", 1024, 2, "float", "", "unknown allreduce algorithm"},
		{"allreduce", "7", 1024, 2, "float", "portoneshot", ""},
		{"allreduce", "portoneshot", 2 << 20, 2, "float", "", "handles 0 to 1048576 bytes"},
		{"allreduce", "13", 1024, 2, "float", "", "unknown allreduce algorithm"},
		{"allreduce", "12", 1024, 2, "float", "", "hostrsag needs some pair of ranks over a network transport"},
		{"allreduce", "9", 1024, 2, "float", "", "hostput needs some pair of ranks over a network transport"},
		// the host-resident algorithms need a network: not on one host
		{"allreduce", "8", 1024, 2, "float", "", "hostoneshot needs no pair of ranks connected by CUDA IPC"},
		{"allgather", "hostput", 1024, 2, "float", "", "hostput needs some pair of ranks over a network transport"},
		{"nosuchcollective", "auto", 1024, 2, "float", "", "no nosuchcollective algorithm"},
	}
	for _, tt := range tests {
		algs, err := collectives.Select(tt.coll, tt.k, tt.size, tt.nranks, tt.dtype)
		if tt.want == "" {
			if err == nil {
				t.Errorf("Select(%s, %s, %d, %d, %s) = %v, want an error", tt.coll, tt.k, tt.size, tt.nranks, tt.dtype, AlgNames(algs))
			} else if !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("Select(%s, %s, %d, %d, %s) error %q does not contain %q", tt.coll, tt.k, tt.size, tt.nranks, tt.dtype, err, tt.errHas)
			}
			continue
		}
		if err != nil || len(algs) != 1 || algs[0].Name != tt.want {
			t.Errorf("Select(%s, %s, %d, %d, %s) = %v, %v; want %s", tt.coll, tt.k, tt.size, tt.nranks, tt.dtype, AlgNames(algs), err, tt.want)
		}
	}
}

func TestFindAndValidKernel(t *testing.T) {
	for _, coll := range []string{"allgather", "allreduce"} {
		for _, a := range collectives.Algorithms(coll) {
			for _, k := range []string{a.Name, fmt.Sprint(a.Number)} {
				got, err := collectives.Find(coll, k)
				if err != nil || got != a {
					t.Errorf("Find(%s, %s) = %v, %v; want %s", coll, k, got, err, a.Name)
				}
				if err := collectives.ValidKernel(coll, k); err != nil {
					t.Errorf("ValidKernel(%s, %s) = %v", coll, k, err)
				}
			}
		}
		for _, k := range []string{"auto", "all"} {
			if err := collectives.ValidKernel(coll, k); err != nil {
				t.Errorf("ValidKernel(%s, %s) = %v", coll, k, err)
			}
		}
		if _, err := collectives.Find(coll, "auto"); err == nil {
			t.Errorf("Find(%s, auto) succeeded; auto names no single algorithm", coll)
		}
		for _, k := range []string{"nope", "-1", "1000", "", "LL16"} {
			_, ferr := collectives.Find(coll, k)
			verr := collectives.ValidKernel(coll, k)
			for _, err := range []error{ferr, verr} {
				if err == nil {
					t.Errorf("%s -k %q: want an error", coll, k)
					continue
				}
				msg := err.Error()
				if !strings.Contains(msg, "auto") || !strings.Contains(msg, "all") {
					t.Errorf("%s -k %q: error %q does not offer auto and all", coll, k, msg)
				}
				for _, a := range collectives.Algorithms(coll) {
					if want := fmt.Sprintf("%s (%d)", a.Name, a.Number); !strings.Contains(msg, want) {
						t.Errorf("%s -k %q: error %q does not list %q", coll, k, msg, want)
					}
				}
			}
		}
	}
	for _, k := range []string{"auto", "all", "0"} {
		if err := collectives.ValidKernel("nosuchcollective", k); err == nil || !strings.Contains(err.Error(), "no algorithms are registered for nosuchcollective") {
			t.Errorf("ValidKernel(nosuchcollective, %s) = %v, want 'no algorithms are registered'", k, err)
		}
	}
}

func TestRegisterDuplicatePanics(t *testing.T) {
	const coll = "test-fake-collective"
	t.Cleanup(func() { collectives.SetAlgorithms(coll, nil) })
	collectives.Register(&collectives.Algorithm{Collective: coll, Name: "one", Number: 5})
	collectives.Register(&collectives.Algorithm{Collective: coll, Name: "two", Number: 1})
	if got := strings.Join(AlgNames(collectives.Algorithms(coll)), ","); got != "two,one" {
		t.Errorf("Algorithms(%s) = %s, want two,one (sorted by number)", coll, got)
	}
	// The same name and number in another collective do not clash.
	collectives.Register(&collectives.Algorithm{Collective: coll + "-2", Name: "one", Number: 5})
	collectives.SetAlgorithms(coll+"-2", nil)

	tests := []struct {
		name string
		alg  *collectives.Algorithm
	}{
		{"same name", &collectives.Algorithm{Collective: coll, Name: "one", Number: 7}},
		{"same number", &collectives.Algorithm{Collective: coll, Name: "three", Number: 1}},
		{"same both", &collectives.Algorithm{Collective: coll, Name: "two", Number: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil {
					t.Fatalf("Register(%s #%d) did not panic", tt.alg.Name, tt.alg.Number)
				}
				if msg := fmt.Sprint(r); !strings.Contains(msg, "clashes") {
					t.Errorf("panic %q does not say what clashes", msg)
				}
			}()
			collectives.Register(tt.alg)
		})
	}
	if n := len(collectives.Algorithms(coll)); n != 2 {
		t.Errorf("after the panics %s has %d algorithms, want 2", coll, n)
	}
}

func TestSupports(t *testing.T) {
	a := &collectives.Algorithm{Collective: "x", Name: "y", MinBytes: 16, MaxBytes: 1024, MinRanks: 2, MaxRanks: 4, Types: []string{"float", "half"}}
	tests := []struct {
		size   int64
		nranks int
		dtype  string
		ok     bool
	}{
		{16, 2, "float", true},
		{1024, 4, "half", true},
		{15, 2, "float", false},
		{1025, 2, "float", false},
		{64, 1, "float", false},
		{64, 5, "float", false},
		{64, 2, "double", false},
	}
	for _, tt := range tests {
		if err := a.Supports(tt.size, tt.nranks, tt.dtype); (err == nil) != tt.ok {
			t.Errorf("Supports(%d, %d, %s) = %v, want ok=%v", tt.size, tt.nranks, tt.dtype, err, tt.ok)
		}
	}
	unlimited := &collectives.Algorithm{Collective: "x", Name: "z"}
	if err := unlimited.Supports(1<<40, 1000, "bfloat16"); err != nil {
		t.Errorf("an algorithm with no limits refused: %v", err)
	}
}
