package harness

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// The harness's share of nccl-tests' options beyond the sweep: per-iteration timing (-I,
// -K), blocking mode 3 (-z), cputime (-C) and misaligned buffers (-u). The root (-r) is
// Options.Root, which measure puts in the root column and LaunchArgs.Root of collectives
// that HasRoot.

// timedLoop runs the timed iterations outside a graph: the launches, the waits and
// barriers of -z, and -I's events (one before each iteration and one after the last, or a
// pair around each iteration's work with -z 3). It returns the time of all iterations, the
// host's time to enqueue them (-C) and, with -I, each iteration's time in microseconds per
// operation. With -z 3 both times leave the barriers out.
func (h *Harness) timedLoop(inst collectives.Instance, base *collectives.LaunchArgs) (elapsed, cpu time.Duration, iterUs []float64, err error) {
	o := h.Opts
	agg := max(o.AggIters, 1)
	paired := o.Blocking == 3
	var ev []device.Event
	if o.PerIter {
		n := o.Iters + 1
		if paired {
			n = 2 * o.Iters
		}
		if ev, err = h.eventPool(n); err != nil {
			return 0, 0, nil, err
		}
	}
	record := func(i int) error {
		if ev == nil {
			return nil
		}
		return h.GPU.Record(ev[i], h.Stream)
	}
	barrier := o.Barrier
	if barrier == nil {
		barrier = h.Mesh.Boot.Barrier
	}
	var work time.Duration // -z 3: the iterations without their barriers
	start := time.Now()
	for i := 0; i < o.Iters; i++ {
		t0 := time.Now()
		first := i
		if paired {
			first = 2 * i
		}
		if err := record(first); err != nil {
			return 0, 0, nil, err
		}
		for j := 0; j < agg; j++ {
			if err := h.launch(inst, h.At(base, i*agg+j)); err != nil {
				return 0, 0, nil, err
			}
			if o.Blocking == 0 {
				continue
			}
			if err := h.sync(); err != nil {
				return 0, 0, nil, err
			}
			if o.Blocking == 1 {
				if err := barrier(); err != nil {
					return 0, 0, nil, err
				}
			}
		}
		if paired {
			if err := record(first + 1); err != nil {
				return 0, 0, nil, err
			}
			work += time.Since(t0)
			if err := barrier(); err != nil {
				return 0, 0, nil, err
			}
		}
	}
	if !paired {
		if err := record(o.Iters); err != nil {
			return 0, 0, nil, err
		}
	}
	cpu = time.Since(start)
	if err := h.sync(); err != nil {
		return 0, 0, nil, err
	}
	elapsed = time.Since(start)
	if paired {
		elapsed, cpu = work, work
	}
	if ev == nil {
		return elapsed, cpu, nil, nil
	}
	iterUs = make([]float64, o.Iters)
	for i := range iterUs {
		a, b := ev[i], ev[i+1]
		if paired {
			a, b = ev[2*i], ev[2*i+1]
		}
		ms, err := h.GPU.ElapsedMs(a, b)
		if err != nil {
			return 0, 0, nil, fmt.Errorf("iteration %d's time: %w", i, err)
		}
		iterUs[i] = ms * 1e3 / float64(agg)
	}
	return elapsed, cpu, iterUs, nil
}

// eventPool returns n events, making the missing ones (Close destroys them).
func (h *Harness) eventPool(n int) ([]device.Event, error) {
	for len(h.events) < n {
		e, err := h.GPU.NewEvent()
		if err != nil {
			return nil, err
		}
		h.events = append(h.events, e)
	}
	return h.events[:n], nil
}

// iterStats gathers every rank's per-iteration times and computes -I's statistics, each
// iteration's time being the largest over ranks.
func (h *Harness) iterStats(own []float64) (*results.IterStats, error) {
	b := make([]byte, 8*len(own))
	for i, v := range own {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	all, err := h.Mesh.Boot.AllGather(b)
	if err != nil {
		return nil, err
	}
	perRank := make([][]float64, len(all))
	for r, a := range all {
		if len(a) != len(b) {
			return nil, fmt.Errorf("rank %d sent %d bytes of per-iteration times, want %d", r, len(a), len(b))
		}
		perRank[r] = make([]float64, len(own))
		for i := range own {
			perRank[r][i] = math.Float64frombits(binary.LittleEndian.Uint64(a[8*i:]))
		}
	}
	return results.NewIterStats(perRank, h.Opts.PerIterSkip)
}
