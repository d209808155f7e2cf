package results

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// IterStats is nccl-tests' per-iteration report of one placement (-I): the time of every
// timed iteration, each the largest over ranks, and statistics over them after the first
// Skipped ones (-K). Times are in microseconds.
type IterStats struct {
	Skipped                      int
	Min, Max, Avg, P50, P95, P99 float64
	Stdev                        float64 // population standard deviation
	CVPct                        float64 // Stdev / Avg in percent (0 when Avg is 0)
	// Times holds every iteration's time, skipped ones included.
	Times []float64
	// PerRank holds each rank's own times (nccl-tests' "per_process_max_times_us"); it is
	// left out of the JSON with one rank.
	PerRank [][]float64
}

// NewIterStats computes the statistics of perRank[r][i], rank r's time of iteration i in
// microseconds: iteration i's time is the largest over ranks, and the first skip
// iterations are left out of the statistics (not of Times). Percentiles are nearest-rank,
// as nccl-tests computes them. It fails on ranks of different lengths or a skip that
// leaves no iteration.
func NewIterStats(perRank [][]float64, skip int) (*IterStats, error) {
	if len(perRank) == 0 || len(perRank[0]) == 0 {
		return nil, fmt.Errorf("per-iteration times: none")
	}
	n := len(perRank[0])
	if skip < 0 || skip >= n {
		return nil, fmt.Errorf("per-iteration times: cannot skip %d of %d iterations", skip, n)
	}
	times := make([]float64, n)
	for r, row := range perRank {
		if len(row) != n {
			return nil, fmt.Errorf("per-iteration times: rank %d has %d iterations, rank 0 %d", r, len(row), n)
		}
		for i, v := range row {
			if r == 0 || v > times[i] {
				times[i] = v
			}
		}
	}
	s := &IterStats{Skipped: skip, Times: times}
	if len(perRank) > 1 {
		s.PerRank = perRank
	}
	sorted := slices.Clone(times[skip:])
	slices.Sort(sorted)
	m := len(sorted)
	s.Min, s.Max = sorted[0], sorted[m-1]
	s.P50 = sorted[m/2]
	s.P95 = sorted[percentileIndex(m, 95)]
	s.P99 = sorted[percentileIndex(m, 99)]
	sum := 0.0
	for _, v := range sorted {
		sum += v
	}
	s.Avg = sum / float64(m)
	variance := 0.0
	for _, v := range sorted {
		variance += (v - s.Avg) * (v - s.Avg)
	}
	s.Stdev = math.Sqrt(variance / float64(m))
	if s.Avg > 0 {
		s.CVPct = s.Stdev / s.Avg * 100
	}
	return s, nil
}

// percentileIndex is the nearest-rank index of percentile p among n sorted values.
func percentileIndex(n, p int) int { return min(n-1, (n*p+99)/100-1) }

// MemoryUsage is nccl-tests' GPU memory report (-M), each figure the largest over ranks.
type MemoryUsage struct {
	Init       int64 // set-up: what joining the job (connections, channels) took
	User       int64 // the benchmark's buffers
	Collective int64 // what running the collectives took on top (scratch, graphs)
}

// FormatMemory writes a byte count as nccl-tests' memory report does: binary units (B, KB,
// MB, GB), two decimals below 10, one below 100, none above.
func FormatMemory(bytes int64) string {
	v := float64(bytes)
	unit := "B"
	for _, u := range []struct {
		name string
		size float64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if math.Abs(v) >= u.size {
			v, unit = v/u.size, u.name
			break
		}
	}
	prec := 0
	switch {
	case math.Abs(v) < 10:
		prec = 2
	case math.Abs(v) < 100:
		prec = 1
	}
	return fmt.Sprintf("%.*f %s", prec, v, unit)
}

// TimestampLayout is the layout of -S's timestamp column (nccl-tests' "%Y-%m-%d %H:%M:%S").
const TimestampLayout = TimeLayout

// formatTimestamp renders the -S column: the local time right-aligned in 21 characters.
func formatTimestamp(t time.Time) string { return fmt.Sprintf("%21s", t.Format(TimestampLayout)) }
