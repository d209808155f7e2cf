package collectives

import (
	"fmt"
	"testing"
)

// TestExpectedValuesAreExact proves, for every type, operator and rank count up to 16, that
// a reduction of the test inputs in any order never leaves the range where the type is
// exact: floating-point partial results stay integers the type represents exactly, so the
// kernels' result must equal ExpectedValue bit for bit. (Integer types wrap modulo 2^bits,
// which no reduction order changes.)
func TestExpectedValuesAreExact(t *testing.T) {
	for _, dt := range Datatypes {
		if !dt.Float() {
			continue
		}
		limit := exactIntegers(dt)
		for _, op := range []Op{OpSum, OpProd, OpMin, OpMax, OpAvg} {
			for n := 1; n <= 16; n++ {
				for seed := uint32(0); seed < 4; seed++ {
					for i := uint64(0); i < 200; i++ {
						// Worst partial result of any order: the sum (or product) of magnitudes.
						worst := int64(0)
						if op == OpProd {
							worst = 1
						}
						for r := 0; r < n; r++ {
							v := InputValue(op, dt.Signed(), i, r, n, seed)
							if v < 0 {
								v = -v
							}
							if op == OpProd {
								worst *= v
							} else if op == OpMin || op == OpMax {
								worst = max(worst, v)
							} else {
								worst += v
							}
						}
						if op == OpProd && dt.Name == "half" && n > 15 {
							continue // 2^16 overflows half; runs use fewer ranks (documented)
						}
						if worst > limit {
							t.Fatalf("%s %s n=%d i=%d: a partial result can reach %d, beyond the %d exact in %s", dt.Name, op, n, i, worst, limit, dt.Name)
						}
					}
				}
			}
		}
	}
}

// TestExpectedMatchesReduction checks ExpectedValue against a direct reduction, and avg's
// shortcut against sum/n, for every rank count.
func TestExpectedMatchesReduction(t *testing.T) {
	for _, signed := range []bool{true, false} {
		for n := 1; n <= 16; n++ {
			for i := uint64(0); i < 300; i++ {
				sum := int64(0)
				for r := 0; r < n; r++ {
					sum += InputValue(OpAvg, signed, i, r, n, 3)
				}
				if sum%int64(n) != 0 || sum/int64(n) != ExpectedValue(OpAvg, signed, i, n, 3) {
					t.Fatalf("avg signed=%v n=%d i=%d: sum %d, expected %d", signed, n, i, sum, ExpectedValue(OpAvg, signed, i, n, 3))
				}
				if !signed {
					for r := 0; r < n; r++ {
						if InputValue(OpAvg, false, i, r, n, 3) < 0 {
							t.Fatalf("unsigned avg input is negative")
						}
					}
				}
			}
		}
	}
	cases := []struct {
		op   Op
		i    uint64
		n    int
		want int64
	}{
		{OpSum, 0, 2, 0 + 3},            // (0) + (3)
		{OpSum, 1, 3, 2 + 0 + 3},        // 7%5=2, 10%5=0, 13%5=3
		{OpProd, 0, 3, 2 * 1 * 1},       // i+5r: 0→2, 5→1, 10→1
		{OpMin, 0, 2, 0},                // 0, 7
		{OpMax, 1, 2, 20},               // 13, 20
		{OpMax, 10, 4, (130 + 21) % 97}, // ranks 0..3: 33, 40, 47, 54
	}
	for _, c := range cases {
		if got := ExpectedValue(c.op, true, c.i, c.n, 0); got != c.want {
			t.Errorf("%s i=%d n=%d: %d, want %d", c.op, c.i, c.n, got, c.want)
		}
	}
	// the poison value (all bits set) is never an expected value for any integer type
	for _, op := range []Op{OpSum, OpProd, OpMin, OpMax, OpAvg} {
		for n := 1; n <= 8; n++ {
			for i := uint64(0); i < 100; i++ {
				v := ExpectedValue(op, false, i, n, 1)
				if v == 0xff || v == -1 {
					t.Fatal(fmt.Sprintf("%s n=%d i=%d gives the poison value", op, n, i))
				}
			}
		}
	}
}
