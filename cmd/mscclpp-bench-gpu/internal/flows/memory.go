package flows

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mscclpp-bench/mscclpp-bench/internal/memstat"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// noteMemory prints, after a cycle of a repeated sweep (-N), the largest host RSS and GPU
// memory in use over all ranks, so that a long run shows whether either grows.
func (j *Job) noteMemory(p *results.TextPrinter, cycle int) error {
	rss, err := memstat.HostRSS()
	if err != nil {
		return fmt.Errorf("rank %d: %w", j.Rank(), err)
	}
	free, total, err := j.GPU.MemInfo()
	if err != nil {
		return fmt.Errorf("rank %d: %w", j.Rank(), err)
	}
	var mine [16]byte
	binary.LittleEndian.PutUint64(mine[:8], rss)
	binary.LittleEndian.PutUint64(mine[8:], total-free)
	all, err := j.Boot.AllGather(mine[:])
	if err != nil {
		return err
	}
	var maxRSS, maxGPU uint64
	for _, b := range all {
		maxRSS = max(maxRSS, binary.LittleEndian.Uint64(b[:8]))
		maxGPU = max(maxGPU, binary.LittleEndian.Uint64(b[8:]))
	}
	p.Note("cycle %d done: host RSS %.1f MiB, GPU memory in use %.1f MiB (largest over ranks)", cycle, mib(maxRSS), mib(maxGPU))
	return nil
}

func mib(b uint64) float64 { return math.Round(float64(b)/(1<<20)*10) / 10 }
