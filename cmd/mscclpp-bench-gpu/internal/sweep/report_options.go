package sweep

import (
	"encoding/binary"
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// ncclTestsHeader adds to h what nccl-tests' options change in the report: -u in the
// parameter line, the -z and -I lines, the -C and -S columns, and the notes on options
// that do not apply here.
func ncclTestsHeader(h results.Header, c *cli.CollectiveOptions) results.Header {
	o := c.NCCLTests
	h.Unalign, h.Blocking = o.Unalign, c.Blocking
	h.PerIter, h.PerIterSkip, h.ParallelInit = o.PerIter, o.PerIterSkip, o.ParallelInit
	h.CPUTime, h.Timestamps = o.CPUTime, o.Timestamps
	h.Notes = append(h.Notes, o.Notes...)
	if c.RepeatCheck {
		h.RepeatCheck = true
		h.Notes = append(h.Notes, fmt.Sprintf("Repeat check: each placement runs %d more times on inputs whose reduction depends on its order; "+
			"every output must be bitwise the first run's (and rank 0's for allreduce, allgather, broadcast): the repeat column", max(c.Iters, 2)))
	}
	return h
}

// memoryMeter takes the GPU's free memory before the buffers are allocated, after, and
// after the sweep (-M); it does nothing when off.
type memoryMeter struct {
	gpu  device.GPU
	on   bool
	free []uint64
}

func (m *memoryMeter) mark() error {
	if !m.on {
		return nil
	}
	free, _, err := m.gpu.MemInfo()
	if err != nil {
		return fmt.Errorf("GPU memory for -M: %w", err)
	}
	m.free = append(m.free, free)
	return nil
}

// usage returns nccl-tests' memory report, each figure the largest over ranks: setup is
// what this rank's set-up took, the buffers and the sweep come from the marks. It is nil
// when off.
func (m *memoryMeter) usage(setup int64, allGather func([]byte) ([][]byte, error)) (*results.MemoryUsage, error) {
	if !m.on {
		return nil, nil
	}
	if len(m.free) != 3 {
		return nil, fmt.Errorf("GPU memory for -M: %d readings, want 3", len(m.free))
	}
	mine := []int64{setup, int64(m.free[0]) - int64(m.free[1]), int64(m.free[1]) - int64(m.free[2])}
	b := make([]byte, 8*len(mine))
	for i, v := range mine {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
	all, err := allGather(b)
	if err != nil {
		return nil, err
	}
	var u results.MemoryUsage
	for r, a := range all {
		if len(a) != len(b) {
			return nil, fmt.Errorf("rank %d sent %d bytes of memory figures, want %d", r, len(a), len(b))
		}
		get := func(i int) int64 { return int64(binary.LittleEndian.Uint64(a[8*i:])) }
		if r == 0 {
			u = results.MemoryUsage{Init: get(0), User: get(1), Collective: get(2)}
			continue
		}
		u.Init, u.User, u.Collective = max(u.Init, get(0)), max(u.User, get(1)), max(u.Collective, get(2))
	}
	return &u, nil
}
