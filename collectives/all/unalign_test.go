package all

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/collectivestest"
	"github.com/mscclpp-bench/mscclpp-bench/harness"
)

// TestHarnessAtUnalign: -u N moves both buffers of every iteration N elements later, in
// bytes N times the element size (1, 2, 4 and 8 bytes), on top of the iteration's 256-byte
// aligned step, and the moved region stays inside the buffer the harness allocated.
func TestHarnessAtUnalign(t *testing.T) {
	const maxBytes = 64 << 10
	for _, dtype := range []string{"int8", "half", "bfloat16", "float", "double", "uint64"} {
		for _, unalign := range []int{1, 3, 7, 100} {
			for _, tt := range []struct {
				coll   string
				size   int64
				nranks int
				rank   int
			}{
				{"allreduce", 3000, 2, 1},
				{"allgather", 4096, 4, 3},
				{"alltoall", maxBytes, 2, 1},
			} {
				dt := collectivestest.MustType(t, dtype)
				coll := collectivestest.MustLookup(t, tt.coll)
				pad := uint64(unalign) * collectives.MaxTypeSize
				bufBytes := algo.RoundUp(maxBytes+pad, 256) // as NewHarness sizes it
				h := &harness.Harness{Coll: coll, Opts: harness.Options{Unalign: unalign}, Pad: pad,
					Env: &collectives.Env{Rank: tt.rank, NRanks: tt.nranks, OutBytes: bufBytes, InBytes: bufBytes}}
				c := coll.Counts(tt.size, dt, tt.nranks)
				elt := uint64(dt.Size)
				unit := algo.RoundUp(max(uint64(c.Send), uint64(c.Recv))*elt, 256)
				steps := max((bufBytes-pad)/unit, 1)
				for _, inPlace := range []bool{false, true} {
					base := &collectives.LaunchArgs{Type: dt, Op: collectives.OpSum, Count: c.Send, SendBytes: uint64(c.Send) * elt, RecvBytes: uint64(c.Recv) * elt,
						InPlace: inPlace, SendInPlace: uint64(c.SendInPlace) * elt, RecvInPlace: uint64(c.RecvInPlace) * elt}
					for iter := 0; iter < int(2*steps)+1; iter++ {
						a := h.At(base, iter)
						want := unit*(uint64(iter)%steps) + uint64(unalign)*elt
						if a.Shift != want {
							t.Fatalf("%s %s -u %d iter %d: Shift %d, want %d (%d elements of %d bytes past step %d)",
								tt.coll, dtype, unalign, iter, a.Shift, want, unalign, elt, iter%int(steps))
						}
						if off := a.Shift % 256; off != uint64(unalign)*elt%256 {
							t.Errorf("%s %s -u %d: buffers %d bytes off 256-byte alignment, want %d", tt.coll, dtype, unalign, off, uint64(unalign)*elt%256)
						}
						if a.InOff+a.SendBytes > bufBytes || a.OutOff+a.RecvBytes > bufBytes {
							t.Errorf("%s %s -u %d iter %d: input [%d, +%d) or output [%d, +%d) overruns the %d-byte buffer",
								tt.coll, dtype, unalign, iter, a.InOff, a.SendBytes, a.OutOff, a.RecvBytes, bufBytes)
						}
					}
				}
			}
		}
	}
}

// TestSelectAnyOffset: for every collective, wherever an algorithm runs on aligned buffers
// (layout, size, type, placement), auto also finds one at -u 1, 3 and 7 elements, and it
// and every one all offers handle the offset; a named algorithm that does not handle it is
// refused saying why.
func TestSelectAnyOffset(t *testing.T) {
	layouts := []collectives.Layout{collectives.OneHostLayout(1), collectives.OneHostLayout(2), collectives.OneHostLayout(4), layoutOf(false, "h0", "h1"),
		layoutOf(false, "h0", "h0", "h1", "h1"), layoutOf(true, "h0", "h0")}
	sizes := []int64{8, 1000, 1 << 20, 48 << 20, 1 << 30}
	for _, coll := range collectives.Collectives() {
		name := coll.Name()
		for _, l := range layouts {
			for _, dt := range collectives.Datatypes {
				for _, size := range sizes {
					for _, inPlace := range []bool{false, true} {
						if _, err := collectives.SelectAt(name, "auto", size, l, dt.Name, inPlace, 0); err != nil {
							continue // nothing runs here even aligned
						}
						for _, u := range []int{1, 3, 7} {
							off := collectives.UnalignOffset(u, dt)
							where := fmt.Sprintf("%s %d B of %s on %v, in place %v, -u %d", name, size, dt.Name, l, inPlace, u)
							auto, err := collectives.SelectAt(name, "auto", size, l, dt.Name, inPlace, off)
							if err != nil {
								t.Errorf("%s: auto: %v", where, err)
								continue
							}
							if off%collectives.UnalignBytes != 0 && !auto[0].AnyOffset {
								t.Errorf("%s: auto picked %s, which needs aligned buffers", where, auto[0].Name)
							}
							all, err := collectives.SelectAt(name, "all", size, l, dt.Name, inPlace, off)
							if err != nil || len(all) == 0 {
								t.Errorf("%s: all = %v, %v", where, AlgNames(all), err)
							}
							for _, a := range all {
								if a.SupportsOffset(off) != nil {
									t.Errorf("%s: all offers %s, which needs aligned buffers", where, a.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	// a named algorithm without AnyOffset: refused off alignment, taken on it
	hier, err := collectives.Find("allreduce", "hier")
	if err != nil {
		t.Fatal(err)
	}
	if hier.AnyOffset {
		t.Fatal("allreduce hier claims any offset: pick another aligned-only algorithm for this test")
	}
	two := layoutOf(false, "h0", "h0", "h1", "h1")
	if _, err := collectives.SelectAt("allreduce", "hier", 1<<20, two, "float", false, 4); err == nil || !strings.Contains(err.Error(), "needs buffers aligned to 16 bytes, and -u puts them 4 bytes off") {
		t.Errorf("SelectAt(allreduce, hier, 4 bytes off) = %v, want a refusal naming the alignment", err)
	}
	if _, err := collectives.SelectAt("allreduce", "hier", 1<<20, two, "float", false, 16); err != nil {
		t.Errorf("SelectAt(allreduce, hier, 16 bytes off): %v", err)
	}
}

func TestCheckUnalign(t *testing.T) {
	tests := []struct {
		coll, k string
		unalign int
		dtypes  []string
		wantErr string // "": accepted
	}{
		{"allreduce", "auto", 1, []string{"int8", "half", "float", "double"}, ""},
		{"allreduce", "all", 7, []string{"bfloat16"}, ""},
		{"allreduce", "rsag", 3, []string{"float"}, ""},
		{"allreduce", "hier", 4, []string{"float"}, ""},  // 16 bytes: aligned
		{"allreduce", "hier", 2, []string{"double"}, ""}, // 16 bytes
		{"allreduce", "hier", 2, []string{"double", "half"}, "-u 2 with half: allreduce hier needs buffers aligned to 16 bytes, and -u puts them 4 bytes off"},
		{"allgather", "hier", 1, []string{"float"}, "allgather hier needs buffers aligned to 16 bytes, and -u puts them 4 bytes off (algorithms that take any offset: ll16, put, get, port, blockput, portput, hostput, railput, hostoneshot, local)"},
		{"allgather", "hostput", 1, []string{"float"}, ""},
		{"allreduce", "nosuch", 1, []string{"float"}, "unknown allreduce algorithm"},
	}
	for _, tt := range tests {
		err := collectives.CheckUnalign(tt.coll, tt.k, tt.unalign, tt.dtypes)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("CheckUnalign(%s, %s, %d, %v) = %v, want %q", tt.coll, tt.k, tt.unalign, tt.dtypes, err, tt.wantErr)
		}
	}
	// a collective none of whose algorithms takes an offset: auto refuses it up front
	collectives.Register(&collectives.Algorithm{Collective: "testunalign", Name: "aligned", Number: 1, MinRanks: 1})
	defer collectives.SetAlgorithms("testunalign", nil)
	if err := collectives.CheckUnalign("testunalign", "auto", 1, []string{"float"}); err == nil || !strings.Contains(err.Error(), "no testunalign algorithm handles buffers 4 bytes off") {
		t.Errorf("CheckUnalign(aligned-only collective, auto, -u 1) = %v, want a refusal", err)
	}
	if err := collectives.CheckUnalign("testunalign", "auto", 4, []string{"float"}); err != nil {
		t.Errorf("CheckUnalign(aligned-only collective, auto, -u 4 float): %v", err)
	}
}

// TestAlignedOnlyAlgorithms: the algorithms that need aligned buffers are the ones
// docs/cli.md's -u line names (their kernels load 16-byte vectors without an element path).
func TestAlignedOnlyAlgorithms(t *testing.T) {
	var got []string
	for _, coll := range collectives.Collectives() {
		for _, a := range collectives.Algorithms(coll.Name()) {
			if !a.AnyOffset && a.Number < 900 { // 900+: test-only algorithms
				got = append(got, a.Collective+" "+a.Name)
			}
		}
	}
	want := "allgather hier, allreduce hier, allreduce hostoneshot"
	if strings.Join(got, ", ") != want {
		t.Errorf("algorithms without AnyOffset: %s; want %s (update docs/cli.md's -u line)", strings.Join(got, ", "), want)
	}
}
