// Package compare compares two benchmark results files, a baseline and a
// current run, row by row, and judges each row as improved, unchanged (ok),
// regressed, missing, new or wrong.
//
// Both files may come from mscclpp-bench or from nccl-tests (-J); see
// Compare for how rows are matched and judged. WriteTable prints a Result
// for people and WriteJUnit for CI systems.
package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// Options tune how Compare judges rows.
type Options struct {
	// TimeTolerance is the relative change in time (or ping-pong latency)
	// still counted as noise, as a fraction: 0.15 is 15 %.
	TimeTolerance float64
	// BusBwTolerance is the relative change in bus bandwidth (or ping-pong
	// bandwidth) still counted as noise, as a fraction.
	BusBwTolerance float64
	// LatencyBoundBelow splits collective rows by size: rows smaller than
	// this many bytes are latency-bound and judged on time; rows of this
	// size and above are judged on bus bandwidth.
	LatencyBoundBelow int64
	// Force compares runs whose configurations differ (rank count, GPU
	// models, collective) or that have no rows in common; the differences
	// are then reported in Result.Warnings instead of as an error.
	Force bool
	// AnyAlgorithm matches rows whatever algorithm measured them, so that
	// two -k auto runs whose choice of algorithm differs at some size are
	// still compared size by size. Each file must then hold one row per
	// type, op and size.
	AnyAlgorithm bool
}

// DefaultOptions returns the default Options: 15 % time tolerance, 5 % bus
// bandwidth tolerance, rows below 1 MiB judged on time, no Force.
func DefaultOptions() Options {
	return Options{TimeTolerance: 0.15, BusBwTolerance: 0.05, LatencyBoundBelow: 1 << 20}
}

// Errors returned by Compare, for errors.Is. All of them mean bad input.
var (
	// ErrMismatch means the two runs used different configurations.
	ErrMismatch = errors.New("configurations differ")
	// ErrNoCommonRows means no baseline row has a counterpart in the
	// current run.
	ErrNoCommonRows = errors.New("no rows in common")
	// ErrDuplicate means a file holds two rows with the same key.
	ErrDuplicate = errors.New("duplicate row")
)

// Verdict is the judgement of one compared row.
type Verdict string

// Verdicts. Regressed, Missing and Wrong are failures.
const (
	Improved  Verdict = "improved"  // better beyond the tolerance
	OK        Verdict = "ok"        // within the tolerance
	Regressed Verdict = "regressed" // worse beyond the tolerance
	Missing   Verdict = "missing"   // in the baseline only
	New       Verdict = "new"       // in the current run only
	Wrong     Verdict = "wrong"     // the current row has wrong elements
	NA        Verdict = "n/a"       // values that cannot be compared; see Row.Note
)

// Failure reports whether v makes the comparison fail.
func (v Verdict) Failure() bool {
	return v == Regressed || v == Missing || v == Wrong
}

// Metric names, as shown in Row.Metric.
const (
	MetricTime    = "time"    // collective time per operation, lower is better
	MetricBusBw   = "busbw"   // collective bus bandwidth, higher is better
	MetricLatency = "latency" // ping-pong one-way latency, lower is better
	MetricBw      = "bw"      // ping-pong bandwidth, higher is better
)

// Placement names, as shown in Row.Placement.
const (
	OutOfPlace = "out-of-place"
	InPlace    = "in-place"
)

// Row is one compared measurement: one placement of one collective row, or
// one ping-pong row.
type Row struct {
	// PingPong is set for ping-pong rows, which use Pair, Channel and Mode
	// instead of Algorithm, Type, Op, Root and Placement.
	PingPong   bool
	Collective string // nccl-tests test name, e.g. "all_reduce_perf", or "pingpong"
	// Algorithm is the current row's algorithm (the baseline's for a
	// missing row); empty for nccl-tests rows.
	Algorithm string
	// BaselineAlgorithm is the baseline row's algorithm: empty when an
	// nccl-tests baseline is compared with named algorithms.
	BaselineAlgorithm string
	Type, Op          string // data type and reduction, e.g. "float", "sum"
	Root              int    // root rank, -1 when not rooted
	Placement         string // OutOfPlace or InPlace
	Pair, Channel     string // ping-pong ranks ("0-1") and channel ("memory")
	Mode              string // ping-pong mode: "signal", "signal-relaxed", "put" or "put-bidir"
	Size              int64  // bytes

	Metric string // MetricTime, MetricBusBw, MetricLatency or MetricBw
	Unit   string // "us" or "GB/s"
	// HigherIsBetter is true for bandwidth metrics.
	HigherIsBetter bool
	// Baseline and Current are the metric's values; NaN when the row is
	// absent from that file.
	Baseline, Current float64
	// Change is (Current-Baseline)/Baseline, a fraction; NaN when it cannot
	// be computed. Positive means slower for times, faster for bandwidths.
	Change float64
	// Tolerance is the fraction of change counted as noise for Metric.
	Tolerance float64
	// Wrong is the current row's wrong-element count (-1: not checked).
	Wrong   int64
	Verdict Verdict
	// Note explains an NA verdict, or other remarks; empty otherwise.
	Note string
}

// Name identifies the row in one string, e.g.
// "all_reduce_perf/rsag/float/sum/out-of-place/1048576" or
// "pingpong/0-1/memory/put/1048576". An empty algorithm reads "default"; a
// root rank, when there is one, follows the op as "root=N".
func (r *Row) Name() string {
	if r.PingPong {
		return strings.Join([]string{r.Collective, r.Pair, r.Channel, r.Mode, fmt.Sprint(r.Size)}, "/")
	}
	parts := []string{r.Collective, algorithmLabel(r.Algorithm), r.Type, r.Op}
	if r.Root >= 0 {
		parts = append(parts, fmt.Sprintf("root=%d", r.Root))
	}
	parts = append(parts, r.Placement, fmt.Sprint(r.Size))
	return strings.Join(parts, "/")
}

// algorithmLabel names an algorithm for display: "default" when empty.
func algorithmLabel(a string) string {
	if a == "" {
		return "default"
	}
	return a
}

// Counts holds how many rows got each verdict.
type Counts struct {
	Improved, OK, Regressed, Missing, New, Wrong, NA int
}

// add counts one verdict.
func (c *Counts) add(v Verdict) {
	switch v {
	case Improved:
		c.Improved++
	case OK:
		c.OK++
	case Regressed:
		c.Regressed++
	case Missing:
		c.Missing++
	case New:
		c.New++
	case Wrong:
		c.Wrong++
	case NA:
		c.NA++
	}
}

// Result is the outcome of Compare.
type Result struct {
	// Rows are the compared rows: baseline order (for an nccl-tests
	// baseline, each baseline row followed by its matches in current
	// order), then the new rows in current order.
	Rows   []Row
	Counts Counts
	// Warnings lists configuration differences that Options.Force let
	// through; empty otherwise.
	Warnings []string
}

// Regressed returns the number of regressed rows.
func (r *Result) Regressed() int { return r.Counts.Regressed }

// Failed reports whether any row regressed, went missing or has wrong
// elements.
func (r *Result) Failed() bool {
	return r.Counts.Regressed+r.Counts.Missing+r.Counts.Wrong > 0
}

// Summary returns the one-line count of verdicts, e.g. "compared 58 rows:
// 3 improved, 52 ok, 2 regressed, 1 missing, 0 new, 0 wrong". Rows that
// could not be judged are added as ", N n/a" when there are any.
func (r *Result) Summary() string {
	c := r.Counts
	s := fmt.Sprintf("compared %d rows: %d improved, %d ok, %d regressed, %d missing, %d new, %d wrong",
		len(r.Rows), c.Improved, c.OK, c.Regressed, c.Missing, c.New, c.Wrong)
	if c.NA > 0 {
		s += fmt.Sprintf(", %d n/a", c.NA)
	}
	return s
}

// rowKey identifies a collective row within a file. The collective is not
// part of it: a file holds one collective, checked by checkConfig.
type rowKey struct {
	algorithm, typ, op string
	root               int
	size               int64
}

// pingKey identifies a ping-pong row within a file.
type pingKey struct {
	pair, channel, mode string
	size                int64
}

// Compare matches the rows of cur against those of base and judges each.
//
// Collective rows match on algorithm, type, op, root and size; each of
// their placements (out-of-place, in-place) is a separate compared row.
// Rows of size 0 are left out: nccl-tests writes them, possibly several
// times, when it rounds a small size down to whole elements per rank, and
// they time an empty operation. The collective is not part of the match but
// is checked once per file, as each file holds a single one.
// A baseline row without an algorithm (nccl-tests) matches current rows of
// every algorithm, so each algorithm of ours is compared with NCCL; when
// the baseline row names an algorithm, the current row must name the same.
// Rows smaller than opt.LatencyBoundBelow are judged on time with
// opt.TimeTolerance, larger ones on bus bandwidth with opt.BusBwTolerance.
//
// Ping-pong rows match on pair, channel, mode and size; the "signal" modes
// ("signal", "signal-relaxed") are judged on latency (time tolerance),
// the others ("put", "put-bidir") on bandwidth (bus bandwidth tolerance).
//
// A current row with wrong elements is Wrong however fast it is, and even
// when it is new. A
// baseline value that is zero, negative or not finite, or a current value
// that is not finite, gives NA with a note instead of a change.
//
// Compare returns an error, wrapping ErrMismatch, ErrNoCommonRows or
// ErrDuplicate, when the input is unfit: a key twice in one file; unless
// opt.Force, runs with a different rank count, GPU model set or collective,
// or without a row in common. A baseline without any row is an error even
// with opt.Force.
func Compare(base, cur *results.Report, opt Options) (*Result, error) {
	if base == nil || cur == nil {
		return nil, errors.New("compare: nil report")
	}
	if err := opt.validate(); err != nil {
		return nil, err
	}
	baseRows, curRows := measuredRows(base.Rows), measuredRows(cur.Rows)
	if len(baseRows) == 0 && len(base.PingPong) == 0 {
		return nil, errors.New("compare: the baseline has no result rows")
	}
	if opt.AnyAlgorithm { // rows then match whatever their algorithms: one per size
		if err := checkDuplicates("baseline", withoutAlgorithm(baseRows), nil); err != nil {
			return nil, fmt.Errorf("%w (--any-algorithm needs one algorithm per size)", err)
		}
		if err := checkDuplicates("current", withoutAlgorithm(curRows), nil); err != nil {
			return nil, fmt.Errorf("%w (--any-algorithm needs one algorithm per size)", err)
		}
	}
	if err := checkDuplicates("baseline", baseRows, base.PingPong); err != nil {
		return nil, err
	}
	if err := checkDuplicates("current", curRows, cur.PingPong); err != nil {
		return nil, err
	}
	res := &Result{}
	if diffs := configDiffs(base, cur); len(diffs) > 0 {
		if !opt.Force {
			return nil, fmt.Errorf("compare: %w: %s", ErrMismatch, strings.Join(diffs, "; "))
		}
		for _, d := range diffs {
			res.Warnings = append(res.Warnings, ErrMismatch.Error()+": "+d)
		}
	}
	baseColl, curColl := base.Collective, cur.Collective
	switch {
	case baseColl == "":
		baseColl = curColl
	case curColl == "":
		curColl = baseColl
	}
	compareRows(res, baseColl, curColl, baseRows, curRows, opt)
	comparePingPong(res, baseColl, curColl, base.PingPong, cur.PingPong, opt)

	for _, r := range res.Rows {
		res.Counts.add(r.Verdict)
	}
	if !anyMatched(res.Rows) {
		msg := fmt.Sprintf("%d baseline rows, %d current rows, none with the same key", res.Counts.Missing, res.Counts.New+res.Counts.Wrong)
		if hasAlgorithms(baseRows) && !hasAlgorithms(curRows) {
			msg += " (the baseline names algorithms and the current run does not: give the nccl-tests file as the baseline)"
		}
		if !opt.Force {
			return nil, fmt.Errorf("compare: %w: %s", ErrNoCommonRows, msg)
		}
		res.Warnings = append(res.Warnings, ErrNoCommonRows.Error()+": "+msg)
	}
	return res, nil
}

// validate checks that the options make sense.
func (o Options) validate() error {
	for _, t := range []struct {
		name string
		v    float64
	}{{"time tolerance", o.TimeTolerance}, {"bus bandwidth tolerance", o.BusBwTolerance}} {
		if math.IsNaN(t.v) || math.IsInf(t.v, 0) || t.v < 0 {
			return fmt.Errorf("compare: %s %g: want a fraction of at least 0", t.name, t.v)
		}
	}
	if o.LatencyBoundBelow < 0 {
		return fmt.Errorf("compare: latency-bound size %d is negative", o.LatencyBoundBelow)
	}
	return nil
}

// measuredRows returns the rows of size above 0. nccl-tests rounds sizes
// down to whole elements per rank, so small sizes can become 0, several
// times in one file (all_gather -b 8 on two ranks); such rows time an
// empty operation and are not compared.
func measuredRows(rows []results.Row) []results.Row {
	var out []results.Row
	for _, r := range rows {
		if r.Size > 0 {
			out = append(out, r)
		}
	}
	return out
}

// checkDuplicates returns an ErrDuplicate error naming the first key that
// occurs twice in rows or pings; which names the file ("baseline" or
// "current").
func checkDuplicates(which string, rows []results.Row, pings []results.PingPongRow) error {
	seen := map[rowKey]bool{}
	for _, row := range rows {
		k := keyOf(row)
		if seen[k] {
			return fmt.Errorf("compare: %s: %w: algorithm %s, type %s, op %s, root %d, size %d appears twice",
				which, ErrDuplicate, algorithmLabel(k.algorithm), k.typ, k.op, k.root, k.size)
		}
		seen[k] = true
	}
	seenPP := map[pingKey]bool{}
	for _, pp := range pings {
		k := pingKey{pp.Pair, pp.Channel, pp.Mode, pp.Size}
		if seenPP[k] {
			return fmt.Errorf("compare: %s: %w: ping-pong pair %s, channel %s, mode %s, size %d appears twice",
				which, ErrDuplicate, k.pair, k.channel, k.mode, k.size)
		}
		seenPP[k] = true
	}
	return nil
}

// anyMatched reports whether some row has both a baseline and a current figure.
func anyMatched(rows []Row) bool {
	for _, r := range rows {
		if r.Verdict != Missing && r.Verdict != New && !(r.Verdict == Wrong && math.IsNaN(r.Baseline)) {
			return true
		}
	}
	return false
}

// withoutAlgorithm returns a copy of rows with every Algorithm cleared.
func withoutAlgorithm(rows []results.Row) []results.Row {
	out := slices.Clone(rows)
	for i := range out {
		out[i].Algorithm = ""
	}
	return out
}

func keyOf(r results.Row) rowKey {
	return rowKey{r.Algorithm, r.Type, r.Op, r.Root, r.Size}
}

// configDiffs describes how the configurations of base and cur differ in
// ways that make a comparison meaningless; host names may differ.
func configDiffs(base, cur *results.Report) []string {
	var diffs []string
	if base.Collective != "" && cur.Collective != "" &&
		results.CollectiveKey(base.Collective) != results.CollectiveKey(cur.Collective) {
		diffs = append(diffs, fmt.Sprintf("collective: baseline %s, current %s", base.Collective, cur.Collective))
	}
	if len(base.Devices) > 0 && len(cur.Devices) > 0 {
		if nb, nc := len(base.Devices), len(cur.Devices); nb != nc {
			diffs = append(diffs, fmt.Sprintf("rank count: baseline %d, current %d", nb, nc))
		}
		if mb, mc := models(base.Devices), models(cur.Devices); !slices.Equal(mb, mc) {
			diffs = append(diffs, fmt.Sprintf("GPU models: baseline %s, current %s",
				strings.Join(mb, " + "), strings.Join(mc, " + ")))
		}
	}
	return diffs
}

// models returns the sorted set of device names.
func models(devs []results.Device) []string {
	var out []string
	for _, d := range devs {
		out = append(out, strings.TrimSpace(d.Name))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// hasAlgorithms reports whether any row names an algorithm.
func hasAlgorithms(rows []results.Row) bool {
	for _, r := range rows {
		if r.Algorithm != "" {
			return true
		}
	}
	return false
}

// namedPlacement is one placement of a row with its name.
type namedPlacement struct {
	name string
	p    *results.Placement
}

// placements lists a row's placements, out-of-place first; either may be
// nil.
func placements(r results.Row) []namedPlacement {
	return []namedPlacement{{OutOfPlace, r.OutOfPlace}, {InPlace, r.InPlace}}
}

// compareRows appends the compared collective rows to res. Missing rows
// are labelled with the baseline's collective, the others with the
// current one's. Rows are matched through maps of the current rows' keys,
// so the work grows linearly with the number of rows.
func compareRows(res *Result, baseColl, curColl string, base, cur []results.Row, opt Options) {
	type used struct {
		index     int
		placement string
	}
	// byKey finds a current row by its whole key (keys are unique in a file);
	// anyAlg lists, in current order, the rows of a key without its algorithm.
	byKey := make(map[rowKey]int, len(cur))
	anyAlg := make(map[rowKey][]int, len(cur))
	for i, c := range cur {
		k := keyOf(c)
		byKey[k] = i
		k.algorithm = ""
		anyAlg[k] = append(anyAlg[k], i)
	}
	matched := map[used]bool{}
	for _, b := range base {
		for _, bp := range placements(b) {
			if bp.p == nil {
				continue
			}
			found := false
			for _, i := range matches(b, byKey, anyAlg, opt.AnyAlgorithm) {
				c := cur[i]
				cp := placementOf(c, bp.name)
				if cp == nil {
					continue
				}
				found = true
				matched[used{i, bp.name}] = true
				row := collectiveRow(curColl, c, bp.name, opt)
				row.BaselineAlgorithm = b.Algorithm
				judge(&row, metricValue(row.Metric, bp.p), metricValue(row.Metric, cp), cp.Wrong)
				res.Rows = append(res.Rows, row)
			}
			if !found {
				row := collectiveRow(baseColl, b, bp.name, opt)
				row.BaselineAlgorithm = b.Algorithm
				row.Baseline, row.Current, row.Change = metricValue(row.Metric, bp.p), math.NaN(), math.NaN()
				row.Wrong = -1
				row.Verdict = Missing
				res.Rows = append(res.Rows, row)
			}
		}
	}
	for i, c := range cur {
		for _, cp := range placements(c) {
			if cp.p == nil || matched[used{i, cp.name}] {
				continue
			}
			row := collectiveRow(curColl, c, cp.name, opt)
			markNew(&row, metricValue(row.Metric, cp.p), cp.p.Wrong)
			res.Rows = append(res.Rows, row)
		}
	}
}

// matches returns the indices, in current order, of the current rows that baseline row
// b matches: those of equal key, where an empty baseline algorithm (or anyAlgorithm)
// matches any.
func matches(b results.Row, byKey map[rowKey]int, anyAlg map[rowKey][]int, anyAlgorithm bool) []int {
	k := keyOf(b)
	if k.algorithm == "" || anyAlgorithm {
		k.algorithm = ""
		return anyAlg[k]
	}
	if i, ok := byKey[k]; ok {
		return []int{i}
	}
	return nil
}

// placementOf returns r's placement of the given name (OutOfPlace or
// InPlace), or nil.
func placementOf(r results.Row, name string) *results.Placement {
	if name == OutOfPlace {
		return r.OutOfPlace
	}
	return r.InPlace
}

// markNew fills in a row found only in the current run: New, or Wrong
// when it has wrong elements.
func markNew(row *Row, cur float64, wrong int64) {
	row.Baseline, row.Current, row.Change, row.Wrong = math.NaN(), cur, math.NaN(), wrong
	row.Verdict = New
	if wrong > 0 {
		row.Verdict = Wrong
		row.Note = fmt.Sprintf("%d wrong elements (new row)", wrong)
	}
}

// collectiveRow returns a Row describing placement of r, with the metric
// chosen by size and no values yet.
func collectiveRow(collective string, r results.Row, placement string, opt Options) Row {
	row := Row{
		Collective: collective, Algorithm: r.Algorithm, Type: r.Type, Op: r.Op,
		Root: r.Root, Placement: placement, Size: r.Size,
	}
	if r.Size < opt.LatencyBoundBelow {
		row.Metric, row.Unit, row.Tolerance = MetricTime, "us", opt.TimeTolerance
	} else {
		row.Metric, row.Unit, row.Tolerance, row.HigherIsBetter = MetricBusBw, "GB/s", opt.BusBwTolerance, true
	}
	return row
}

// metricValue returns the value of a collective metric from p.
func metricValue(metric string, p *results.Placement) float64 {
	if metric == MetricTime {
		return p.TimeUs
	}
	return p.BusBw
}

// comparePingPong appends the compared ping-pong rows to res, labelled
// like compareRows does; an unnamed collective reads "pingpong".
func comparePingPong(res *Result, baseColl, curColl string, base, cur []results.PingPongRow, opt Options) {
	if baseColl == "" {
		baseColl, curColl = "pingpong", "pingpong"
	}
	index := map[pingKey]int{}
	for i, c := range cur {
		index[pingKey{c.Pair, c.Channel, c.Mode, c.Size}] = i
	}
	matched := map[int]bool{}
	for _, b := range base {
		row := pingPongRow(baseColl, b, opt)
		i, ok := index[pingKey{b.Pair, b.Channel, b.Mode, b.Size}]
		if !ok {
			row.Baseline, row.Current, row.Change = pingPongValue(row.Metric, b), math.NaN(), math.NaN()
			row.Wrong = -1
			row.Verdict = Missing
			res.Rows = append(res.Rows, row)
			continue
		}
		matched[i] = true
		row.Collective = curColl
		judge(&row, pingPongValue(row.Metric, b), pingPongValue(row.Metric, cur[i]), cur[i].Wrong)
		res.Rows = append(res.Rows, row)
	}
	for i, c := range cur {
		if matched[i] {
			continue
		}
		row := pingPongRow(curColl, c, opt)
		markNew(&row, pingPongValue(row.Metric, c), c.Wrong)
		res.Rows = append(res.Rows, row)
	}
}

// pingPongRow returns a Row describing r, with the metric chosen by mode
// and no values yet.
func pingPongRow(collective string, r results.PingPongRow, opt Options) Row {
	row := Row{
		PingPong: true, Collective: collective, Pair: r.Pair, Channel: r.Channel,
		Mode: r.Mode, Size: r.Size, Root: -1,
	}
	if strings.HasPrefix(r.Mode, "signal") {
		row.Metric, row.Unit, row.Tolerance = MetricLatency, "us", opt.TimeTolerance
	} else {
		row.Metric, row.Unit, row.Tolerance, row.HigherIsBetter = MetricBw, "GB/s", opt.BusBwTolerance, true
	}
	return row
}

// pingPongValue returns the value of a ping-pong metric from r.
func pingPongValue(metric string, r results.PingPongRow) float64 {
	if metric == MetricLatency {
		return r.LatencyUs
	}
	return r.BwGBs
}

// judge fills in the values, change and verdict of a matched row.
func judge(row *Row, base, cur float64, wrong int64) {
	row.Baseline, row.Current, row.Wrong = base, cur, wrong
	row.Change = math.NaN()
	switch {
	case math.IsNaN(base) || math.IsInf(base, 0) || base <= 0:
		row.Verdict = NA
		row.Note = fmt.Sprintf("baseline %s is %g", row.Metric, base)
	case math.IsNaN(cur) || math.IsInf(cur, 0) || (!row.HigherIsBetter && cur <= 0):
		// A measured baseline whose current figure is unusable is a failure, not noise:
		// the run broke (an infinite bandwidth or a zero time is no measurement).
		row.Verdict = Regressed
		row.Note = fmt.Sprintf("current %s is %g", row.Metric, cur)
	default:
		row.Change = (cur - base) / base
		better := -row.Change // lower is better
		if row.HigherIsBetter {
			better = row.Change
		}
		// The slack keeps a change of exactly the tolerance within it despite
		// rounding: (12.305-10.7)/10.7 is 0.15000000000000005.
		const slack = 1e-9
		switch {
		case better > row.Tolerance+slack:
			row.Verdict = Improved
		case better < -row.Tolerance-slack:
			row.Verdict = Regressed
		default:
			row.Verdict = OK
		}
	}
	if wrong > 0 {
		if row.Note != "" {
			row.Note += "; "
		}
		row.Note += fmt.Sprintf("%d wrong elements", wrong)
		row.Verdict = Wrong
	}
}
