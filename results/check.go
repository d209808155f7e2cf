package results

import (
	"errors"
	"fmt"
	"math"
)

// errAcceptanceReport is returned for a JSON document that is an acceptance report
// (acceptance -J), which readers of results files are easily given by mistake.
var errAcceptanceReport = errors.New("this is an acceptance report (acceptance -J), not a results file: " +
	"give the -J file of a collective (allreduce, sendrecv, ...) or of pingpong, or nccl-tests' -J output")

// checkDoc refuses a document that is not a results file, and figures no measurement can
// have: negative sizes or counts; times and bandwidths that are negative or not finite;
// wrong-element counts that are negative, fractional or infinite ("nan" and null mean
// not checked). Errors name the row, e.g. "results[3] (size 1024): in_place.bus_bw -5".
func checkDoc(doc *jsonDoc) error {
	if doc.Results == nil && doc.PingPong == nil {
		if doc.Figures != nil || doc.Checks != nil {
			return errAcceptanceReport
		}
		return errors.New(`not a results file: it has no "results" list`)
	}
	for i, r := range doc.Results {
		where := fmt.Sprintf("results[%d] (size %d)", i, r.Size)
		if r.Size < 0 {
			return fmt.Errorf("%s: size is negative", where)
		}
		if r.Count < 0 {
			return fmt.Errorf("%s: count %d is negative", where, r.Count)
		}
		for _, p := range []struct {
			name string
			p    *jsonPlacement
		}{{"out_of_place", r.OutOfPlace}, {"in_place", r.InPlace}} {
			if p.p == nil {
				continue
			}
			figures := []struct {
				name string
				v    *jsonFloat
			}{{"time", p.p.Time}, {"cpu_time", p.p.CPUTime}, {"alg_bw", &p.p.AlgBw}, {"bus_bw", &p.p.BusBw}}
			for _, f := range figures {
				if err := checkFigure(f.v); err != nil {
					return fmt.Errorf("%s: %s.%s %w", where, p.name, f.name, err)
				}
			}
			if err := checkWrong(p.p.NWrong); err != nil {
				return fmt.Errorf("%s: %s.nwrong %w", where, p.name, err)
			}
		}
		for _, p := range []struct {
			name string
			p    *jsonPerIter
		}{{"out_of_place_per_iter", r.OutPerIter}, {"in_place_per_iter", r.InPerIter}} {
			if err := checkPerIter(p.p); err != nil {
				return fmt.Errorf("%s: %s.%w", where, p.name, err)
			}
		}
	}
	for i, pp := range doc.PingPong {
		where := fmt.Sprintf("pingpong[%d] (size %d)", i, pp.Size)
		if pp.Size < 0 {
			return fmt.Errorf("%s: size is negative", where)
		}
		for _, f := range []struct {
			name string
			v    *jsonFloat
		}{{"time", &pp.Time}, {"latency_us", &pp.LatencyUs}, {"alg_bw", &pp.AlgBw}} {
			if err := checkFigure(f.v); err != nil {
				return fmt.Errorf("%s: %s %w", where, f.name, err)
			}
		}
		if err := checkWrong(pp.NWrong); err != nil {
			return fmt.Errorf("%s: nwrong %w", where, err)
		}
	}
	return nil
}

// checkPerIter accepts an absent per-iteration record or one whose figures are all finite
// and at least 0, and whose skip count is not negative.
func checkPerIter(j *jsonPerIter) error {
	if j == nil {
		return nil
	}
	if j.Skipped < 0 {
		return fmt.Errorf("skipped_iterations %d is negative", j.Skipped)
	}
	figures := []*jsonFloat{&j.Min, &j.Max, &j.Avg, &j.P50, &j.P95, &j.P99, &j.Stdev, &j.CVPct}
	for i := range j.Times {
		figures = append(figures, &j.Times[i])
	}
	for _, r := range j.PerRank {
		for i := range r {
			figures = append(figures, &r[i])
		}
	}
	for _, f := range figures {
		if err := checkFigure(f); err != nil {
			return fmt.Errorf("figure %w", err)
		}
	}
	return nil
}

// checkFigure accepts an absent figure or a finite one of at least 0.
func checkFigure(v *jsonFloat) error {
	if v == nil {
		return nil
	}
	f := float64(*v)
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return fmt.Errorf("%g: want a finite number of at least 0", f)
	}
	return nil
}

// checkWrong accepts null or "nan" (not checked) and whole numbers of at least 0.
func checkWrong(v *jsonFloat) error {
	if v == nil || math.IsNaN(float64(*v)) {
		return nil
	}
	f := float64(*v)
	if math.IsInf(f, 0) || f < 0 || f != math.Trunc(f) || f > math.MaxInt64/2 {
		return fmt.Errorf("%g: want a whole number of at least 0, or null when not checked", f)
	}
	return nil
}
