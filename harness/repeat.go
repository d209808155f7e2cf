package harness

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// The repeatability check (--repeat-check): inputs whose reduction depends on the order it
// is taken in (MixedBits, MixedFloat), the collective run Iters times on them, every run's
// output compared on the GPU with the first one's, byte for byte (repeat_compare), and for
// collectives whose ranks all end with the same output (UniformOutput) each rank's first
// output compared with rank 0's by an order-free hash (repeat_hash), then, only when two
// hashes differ, chunk by chunk over the bootstrap to name the first differing element.

// UniformOutput is implemented by collectives after which every rank holds the same
// output (allreduce, allgather, broadcast): the repeat check compares ranks too.
type UniformOutput interface{ UniformOutput() bool }

// repeatSeed seeds the repeat check's inputs: the same in every run of it.
const repeatSeed = 0x5eed

// RepeatKey packs the first difference repeat_compare records: iteration and element.
func RepeatKey(iter, elem uint64) uint64 { return iter<<40 | elem }

// MixedBits is element i of rank's order-sensitive input as 64 random bits, the formula of
// kernels/verify.cu's mixedBits.
func MixedBits(i uint64, rank int, seed uint32) uint64 {
	x := i*0x9E3779B97F4A7C15 + (uint64(rank)+1)*0xBF58476D1CE4E5B9 + uint64(seed)*0x94D049BB133111EB
	x ^= x >> 31
	x *= 0xD6E8FEB86659FD93
	x ^= x >> 32
	return x
}

// MixedFloat is verify.cu's mixedValue for a floating-point type whose inputs reach 2^maxExp:
// +-(1 + m/1024) * 2^e with e in [-maxExp, maxExp]. Sums of such values round away the low
// bits of the smaller terms, so their order changes the result.
func MixedFloat(x uint64, maxExp int) float64 {
	m := 1 + float64(x&1023)/1024
	e := int((x>>10)%uint64(2*maxExp+1)) - maxExp
	v := math.Ldexp(m, e)
	if (x>>20)&1 == 1 {
		v = -v
	}
	return v
}

// MixedFloat32Exp is the float type's maxExp in verify.cu (MixedExp<float>).
const MixedFloat32Exp = 24

// RepeatHashMix is verify.cu's hashMix (splitmix64's finalizer); repeat_hash sums
// RepeatHashMix(i*256 + byte i) over the bytes.
func RepeatHashMix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return x
}

// repeatKernels are the repeat check's own kernels, looked up when it first runs.
type repeatKernels struct {
	compare params.Kernel[params.RepeatCompareArgs]
	hash    params.Kernel[params.RepeatHashArgs]
}

// repeatState is the repeat check's device memory: a copy of the first run's output, and
// two words (the first difference, the hash).
type repeatState struct {
	k     repeatKernels
	saved device.Ptr
	words device.Ptr // [0]: first difference key (all ones: none); [1]: hash
}

// repeatSetup looks up the kernels and allocates the memory at first use.
func (h *Harness) repeatSetup() (*repeatState, error) {
	if h.rep != nil {
		return h.rep, nil
	}
	ld := &params.Loader{GPU: h.GPU}
	st := &repeatState{k: repeatKernels{compare: params.Load(ld, params.RepeatCmp), hash: params.Load(ld, params.RepeatHash)}}
	if ld.Err != nil {
		return nil, fmt.Errorf("repeat check: %w", ld.Err)
	}
	var err error
	if st.saved, err = h.Mesh.Alloc(h.Env.OutBytes); err != nil {
		return nil, fmt.Errorf("repeat check: %w", err)
	}
	if st.words, err = h.Mesh.Alloc(16); err != nil {
		return nil, fmt.Errorf("repeat check: %w", err)
	}
	h.rep = st
	return st, nil
}

// repeatCheck runs the collective Iters times (at least twice) on the same order-sensitive
// inputs and returns "" when every run's output is bitwise the first one's on every rank
// and, for a UniformOutput collective, every rank's is rank 0's; else where the first
// difference is: the rank, the iteration and the element. All ranks return the same.
func (h *Harness) repeatCheck(inst collectives.Instance, base *collectives.LaunchArgs) (string, error) {
	a := h.At(base, 0)
	st, err := h.repeatSetup()
	if err != nil {
		return "", err
	}
	v := h.verifier
	v.Mixed = true
	defer func() { v.Mixed = false }()
	out := h.Env.Out.Ptrs[h.Env.Rank].Add(a.OutOff)
	bytes, elt := a.RecvBytes, uint32(a.Type.Size)
	if err := h.GPU.MemsetAsync(st.words, 0xff, 8, h.Stream); err != nil {
		return "", err
	}
	if err := h.GPU.MemsetAsync(st.words.Add(8), 0, 8, h.Stream); err != nil {
		return "", err
	}
	iters := max(h.Opts.Iters, 2)
	for it := 0; it < iters; it++ {
		// fresh inputs each time: in place, the last run's output overwrote them
		if err := h.Coll.InitData(v, a, repeatSeed); err != nil {
			return "", err
		}
		if err := h.sync(); err != nil {
			return "", err
		}
		if err := h.Mesh.Boot.Barrier(); err != nil {
			return "", err
		}
		if err := h.checkedLaunch(inst, a); err != nil {
			return "", err
		}
		if it == 0 {
			err = h.GPU.CopyAsync(st.saved, out, bytes, h.Stream)
		} else {
			err = st.k.compare.Launch(v.Dim(), h.Stream, &params.RepeatCompareArgs{Out: out, Saved: st.saved, Bytes: bytes,
				EltSize: elt, Iter: uint64(it), First: st.words})
		}
		if err != nil {
			return "", err
		}
	}
	u, ok := h.Coll.(UniformOutput)
	uniform := ok && u.UniformOutput()
	if uniform {
		if err := st.k.hash.Launch(v.Dim(), h.Stream, &params.RepeatHashArgs{Buf: st.saved, Bytes: bytes, Hash: st.words.Add(8)}); err != nil {
			return "", err
		}
	}
	if err := h.sync(); err != nil {
		return "", err
	}
	var w [16]byte
	if err := h.GPU.CopyFromDevice(w[:], st.words); err != nil {
		return "", err
	}
	all, err := h.Mesh.Boot.AllGather(w[:])
	if err != nil {
		return "", err
	}
	for r, b := range all {
		if len(b) != 16 {
			return "", fmt.Errorf("repeat check: rank %d sent %d bytes, want 16", r, len(b))
		}
		if key := binary.LittleEndian.Uint64(b); key != math.MaxUint64 {
			return fmt.Sprintf("rank %d: iteration %d's output differs from iteration 0's at element %d", r, key>>40, key&(1<<40-1)), nil
		}
	}
	if !uniform {
		return "", nil
	}
	h0 := binary.LittleEndian.Uint64(all[0][8:])
	for r, b := range all {
		if binary.LittleEndian.Uint64(b[8:]) != h0 {
			q, elem, err := h.firstRankDiff(st.saved, bytes, uint64(elt))
			if err != nil {
				return "", err
			}
			if q < 0 { // the hashes differ but no byte does: cannot happen
				return fmt.Sprintf("rank %d's output hash differs from rank 0's (iteration 0)", r), nil
			}
			return fmt.Sprintf("rank %d: iteration 0's output differs from rank 0's at element %d", q, elem), nil
		}
	}
	return "", nil
}

// repeatChunk is how many bytes of their outputs ranks exchange at a time to find the
// first difference (only after the hashes said there is one).
const repeatChunk = 1 << 20

// firstRankDiff finds the first element where some rank's output at p differs from rank
// 0's: the lowest such element, and the lowest rank differing there (-1 when none does).
func (h *Harness) firstRankDiff(p device.Ptr, bytes, elt uint64) (rank int, elem uint64, err error) {
	buf := make([]byte, repeatChunk)
	for off := uint64(0); off < bytes; off += repeatChunk {
		n := min(uint64(repeatChunk), bytes-off)
		if err := h.GPU.CopyFromDevice(buf[:n], p.Add(off)); err != nil {
			return 0, 0, err
		}
		all, err := h.Mesh.Boot.AllGather(buf[:n])
		if err != nil {
			return 0, 0, err
		}
		best, bestRank := n, -1
		for r := 1; r < len(all); r++ {
			if uint64(len(all[r])) != n {
				return 0, 0, fmt.Errorf("repeat check: rank %d sent %d bytes of its output, want %d", r, len(all[r]), n)
			}
			for i := uint64(0); i < best; i++ {
				if all[r][i] != all[0][i] {
					best, bestRank = i, r
					break
				}
			}
		}
		if bestRank >= 0 {
			return bestRank, (off + best) / elt, nil
		}
	}
	return -1, 0, nil
}
