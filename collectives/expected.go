package collectives

// The test data of kernels/verify.cu, in Go. Inputs are small integers chosen per operator
// so every reduction result is exact in every element type; TestExpectedValuesAreExact
// proves the bounds and cmd/mscclpp-bench-gpu/gputest compares the GPU's fill kernels with these.

// InputValue is rank r's input at element i (of n ranks), before conversion to the type.
func InputValue(op Op, signed bool, i uint64, r, n int, seed uint32) int64 {
	switch op {
	case OpSum:
		return int64((i*7 + uint64(r)*3 + uint64(seed)) % 5)
	case OpProd:
		if (i+uint64(r)*5+uint64(seed))%3 == 0 {
			return 2
		}
		return 1
	case OpMin, OpMax:
		return int64((i*13 + uint64(r)*7 + uint64(seed)) % 97)
	}
	// avg: a shared base plus offsets that cancel (signed types) or add n-1 (unsigned)
	k := int64((i*5 + uint64(seed)) % 4)
	if signed {
		return k + 2*int64(r) - int64(n-1)
	}
	return k + 2*int64(r)
}

// ExpectedValue is the exact reduction over n ranks at element i, before conversion to the
// type (integer types then wrap, as the kernels' arithmetic does).
func ExpectedValue(op Op, signed bool, i uint64, n int, seed uint32) int64 {
	if op == OpAvg {
		k := int64((i*5 + uint64(seed)) % 4)
		if signed {
			return k
		}
		return k + int64(n-1)
	}
	acc := InputValue(op, signed, i, 0, n, seed)
	for r := 1; r < n; r++ {
		v := InputValue(op, signed, i, r, n, seed)
		switch op {
		case OpSum:
			acc += v
		case OpProd:
			acc *= v
		case OpMin:
			acc = min(acc, v)
		case OpMax:
			acc = max(acc, v)
		}
	}
	return acc
}

// exactIntegers is the largest magnitude up to which every integer is representable in a
// floating-point type (2^(mantissa bits + 1)).
func exactIntegers(dt Datatype) int64 {
	switch dt.Name {
	case "half":
		return 1 << 11
	case "bfloat16":
		return 1 << 8
	case "float":
		return 1 << 24
	case "double":
		return 1 << 53
	}
	return 0
}
