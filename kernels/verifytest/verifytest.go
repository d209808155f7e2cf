// Package verifytest holds stand-in versions of the pattern kernels of kernels/verify.cu
// (poison, fill_pattern, check_pattern) for tests that run ranks on the stand-in GPU
// (internal/device/devicetest). Only tests import it.
package verifytest

import (
	"encoding/binary"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
)

// PatternByte is the stand-in's fill_pattern: byte i of rank's data under seed, 7-bit
// values, never the 0xff poison.
func PatternByte(i uint64, rank, seed uint32) byte {
	return byte((i*131 + uint64(rank)*31 + uint64(seed)*7) % 127)
}

// AddWrong adds n to the 8-byte wrong-element counter at p, as the check kernels do.
func AddWrong(g *devicetest.GPU, p device.Ptr, n uint64) error {
	w, err := g.Space().Bytes(p, 8)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint64(w, binary.LittleEndian.Uint64(w)+n)
	return nil
}

// PatternKernels returns the stand-ins of poison, fill_pattern and check_pattern, with the
// arguments verify.cu's kernels take.
func PatternKernels() map[string]devicetest.Kernel {
	return map[string]devicetest.Kernel{
		"poison": func(g *devicetest.GPU, a []uint64) error { // (buf, bytes)
			return g.Memset(device.Ptr(a[0]), 0xff, a[1])
		},
		"fill_pattern": func(g *devicetest.GPU, a []uint64) error { // (buf, bytes, rank, seed)
			b, err := g.Space().Bytes(device.Ptr(a[0]), a[1])
			for i := range b {
				b[i] = PatternByte(uint64(i), uint32(a[2]), uint32(a[3]))
			}
			return err
		},
		// (buf, chunkBytes, nchunks, firstRank, seed, eltSize, wrong): an element is wrong
		// when any of its bytes is.
		"check_pattern": func(g *devicetest.GPU, a []uint64) error {
			chunk, n, first, seed, elt := a[1], a[2], a[3], uint32(a[4]), a[5]
			b, err := g.Space().Bytes(device.Ptr(a[0]), chunk*n)
			if err != nil {
				return err
			}
			bad := uint64(0)
			for c := uint64(0); c < n; c++ {
				for j := uint64(0); j+elt <= chunk; j += elt {
					for k := j; k < j+elt; k++ {
						if b[c*chunk+k] != PatternByte(k, uint32(first+c), seed) {
							bad++
							break
						}
					}
				}
			}
			return AddWrong(g, device.Ptr(a[6]), bad)
		},
	}
}
