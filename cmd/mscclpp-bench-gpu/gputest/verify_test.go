//go:build gpu

package gputest

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// decode reads element i of type dt from b as a float64 (exact for our small integers).
func decode(dt collectives.Datatype, b []byte, i int) float64 {
	p := b[i*dt.Size:]
	switch dt.Name {
	case "int8":
		return float64(int8(p[0]))
	case "uint8":
		return float64(p[0])
	case "int32":
		return float64(int32(binary.LittleEndian.Uint32(p)))
	case "uint32":
		return float64(binary.LittleEndian.Uint32(p))
	case "int64":
		return float64(int64(binary.LittleEndian.Uint64(p)))
	case "uint64":
		return float64(binary.LittleEndian.Uint64(p))
	case "float":
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(p)))
	case "double":
		return math.Float64frombits(binary.LittleEndian.Uint64(p))
	case "bfloat16":
		return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(p)) << 16))
	case "half":
		h := binary.LittleEndian.Uint16(p)
		sign, exp, frac := float64(1), int(h>>10&0x1f), float64(h&0x3ff)
		if h&0x8000 != 0 {
			sign = -1
		}
		if exp == 0 {
			return sign * frac / 1024 * math.Pow(2, -14)
		}
		return sign * (1 + frac/1024) * math.Pow(2, float64(exp-15))
	}
	panic("unknown type " + dt.Name)
}

// TestFillMatchesGo: the device's fill kernels produce exactly collectives.InputValue, and
// a buffer holding collectives.ExpectedValue passes the device's check kernel with 0 wrong
// while a single changed element is counted.
func TestFillMatchesGo(t *testing.T) {
	const count = 1001
	m := job.Mesh
	buf, err := m.Alloc(count * 8)
	if err != nil {
		t.Fatal(err)
	}
	wrong, err := m.Alloc(8)
	if err != nil {
		t.Fatal(err)
	}
	for _, dt := range collectives.Datatypes {
		for _, op := range collectives.Ops {
			name := fmt.Sprintf("%s_%s", dt.Name, op)
			const seed = 5
			fill, err := params.Fill.Load(job.GPU, dt.Name, string(op))
			if err != nil {
				t.Fatal(err)
			}
			check, err := params.Check.Load(job.GPU, dt.Name, string(op))
			if err != nil {
				t.Fatal(err)
			}
			dim := device.Dim{Grid: 4, Block: 256}
			fillArgs := params.FillArgs{Buf: buf, Count: count, Rank: uint32(m.Rank), NRanks: uint32(m.NRanks), Seed: seed}
			if err := fill.Launch(dim, job.Stream, &fillArgs); err != nil {
				t.Fatal(err)
			}
			if err := m.Sync(job.Stream); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, count*dt.Size)
			if err := job.GPU.CopyFromDevice(got, buf); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < count; i++ {
				want := float64(collectives.InputValue(op, dt.Signed(), uint64(i), m.Rank, m.NRanks, seed))
				if g := decode(dt, got, i); g != want {
					t.Fatalf("%s element %d: GPU %v, Go %v", name, i, g, want)
				}
			}
			// The check kernel finds nothing wrong in a correct result and counts one bad element.
			countWrong := func() uint64 {
				if err := job.GPU.Memset(wrong, 0, 8); err != nil {
					t.Fatal(err)
				}
				if err := check.Launch(dim, job.Stream, &params.CheckArgs{Buf: buf, Count: count, NRanks: uint32(m.NRanks), Seed: seed, Wrong: wrong}); err != nil {
					t.Fatal(err)
				}
				if err := m.Sync(job.Stream); err != nil {
					t.Fatal(err)
				}
				var w [8]byte
				if err := job.GPU.CopyFromDevice(w[:], wrong); err != nil {
					t.Fatal(err)
				}
				return binary.LittleEndian.Uint64(w[:])
			}
			exp := make([]byte, count*dt.Size)
			for i := 0; i < count; i++ {
				encode(dt, exp, i, collectives.ExpectedValue(op, dt.Signed(), uint64(i), m.NRanks, seed))
			}
			if err := job.GPU.CopyToDevice(buf, exp); err != nil {
				t.Fatal(err)
			}
			if w := countWrong(); w != 0 {
				t.Fatalf("%s: check kernel counts %d wrong in the Go-computed result", name, w)
			}
			encode(dt, exp, 17, collectives.ExpectedValue(op, dt.Signed(), 17, m.NRanks, seed)+1)
			if err := job.GPU.CopyToDevice(buf, exp); err != nil {
				t.Fatal(err)
			}
			if w := countWrong(); w != 1 {
				t.Fatalf("%s: one changed element counted as %d wrong", name, w)
			}
		}
	}
}

// encode writes v (an integer the type holds exactly, or wraps) as element i.
func encode(dt collectives.Datatype, b []byte, i int, v int64) {
	p := b[i*dt.Size:]
	switch dt.Name {
	case "int8", "uint8":
		p[0] = byte(v)
	case "int32", "uint32":
		binary.LittleEndian.PutUint32(p, uint32(v))
	case "int64", "uint64":
		binary.LittleEndian.PutUint64(p, uint64(v))
	case "float":
		binary.LittleEndian.PutUint32(p, math.Float32bits(float32(v)))
	case "double":
		binary.LittleEndian.PutUint64(p, math.Float64bits(float64(v)))
	case "bfloat16":
		binary.LittleEndian.PutUint16(p, uint16(math.Float32bits(float32(v))>>16))
	case "half":
		binary.LittleEndian.PutUint16(p, halfBits(float64(v)))
	}
}

// halfBits encodes small integers (|v| <= 2048) exactly as IEEE half.
func halfBits(v float64) uint16 {
	if v == 0 {
		return 0
	}
	var sign uint16
	if v < 0 {
		sign, v = 0x8000, -v
	}
	e := int(math.Floor(math.Log2(v)))
	frac := uint16(math.Round((v/math.Pow(2, float64(e)) - 1) * 1024))
	return sign | uint16(e+15)<<10 | frac
}
