package harness

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// Options are the harness's share of the command line (nccl-tests' meanings).
type Options struct {
	Sizes    []int64
	Iters    int
	Warmup   int
	AggIters int
	Check    int
	Graph    int // graph launches; 0 = no graph
	// Blocking is nccl-tests' -z: 0 async; 1 wait and barrier after each launch; 2 wait
	// after each launch; 3 wait after each launch and barrier after each iteration, the
	// barrier left out of the time.
	Blocking  int
	Average   int // 0 rank 0, 1 mean, 2 min, 3 max
	Datatypes []string
	Ops       []string
	Kernel    string
	Root      int // the root rank of collectives that have one (nccl-tests' -r)
	SMs       int // multiprocessors kernels may fill (0: the whole GPU)
	// Sharing is how the ranks share GPUs (collectives.Layout.GPUSharing), which the
	// mesh does not show.
	Sharing collectives.GPUSharing
	// Barrier, when set, is blocking mode's per-iteration barrier (a host barrier in shared
	// memory); nil uses the bootstrap's, over TCP.
	Barrier func() error
	// Cycles repeats the whole sweep (nccl-tests' -N): 0 and 1 run it once, a negative
	// number until the process is stopped.
	// AfterCycle, when set, is called after each cycle (1, 2, ...).
	Cycles     int
	AfterCycle func(cycle int) error
	// Progress, when set, is called before each measurement with how many are done of
	// how many, and what comes next.
	Progress func(done, total int, what string)

	// nccl-tests' other options (harness_options.go).
	PerIter     bool // -I: time each iteration with events (not in graph mode)
	PerIterSkip int  // -K: leading iterations left out of the statistics
	Unalign     int  // -u: both buffers start this many elements later
	// RepeatCheck (--repeat-check) runs each placement Iters more times on inputs whose
	// reduction depends on its order and checks that every output is bitwise the first
	// one's, and the same on every rank where the collective says so (repeat.go).
	RepeatCheck bool
	// World, when set, is the whole job while its ranks run in independent groups
	// (nccl-tests' NCCL_TESTS_SPLIT_MASK): times are combined over every rank of it, as
	// nccl-tests does, so every group must measure as many placements.
	World AllGatherer
}

// AllGatherer gathers one message from every rank of a job, in rank order.
type AllGatherer interface {
	AllGather(mine []byte) ([][]byte, error)
}

// Reporter receives the report as it is made (rank 0 prints; others may discard).
type Reporter interface {
	Algorithm(name string)
	Note(format string, args ...any)
	Row(r results.Row)
}

// Harness runs one collective's sweep on one rank. All ranks run it in lockstep.
type Harness struct {
	Coll   collectives.Collective
	GPU    device.GPU
	Mesh   *channels.Mesh
	Stream device.Stream
	Opts   Options

	Env       *collectives.Env
	verifier  *collectives.Verifier
	instances map[*collectives.Algorithm]collectives.Instance
	seed      uint32
	Pad       uint64         // bytes kept free at the end of each buffer for -u
	events    []device.Event // -I's events, made at first use
	rep       *repeatState   // --repeat-check's memory, made at first use
}

// Summary is what a run adds up to.
type Summary struct {
	Rows     []results.Row
	Wrong    int64
	AvgBusBw float64
	// RepeatDiffs counts the placements whose repeat check found a difference (all
	// cycles); FirstRepeatDiff says where the first one was.
	RepeatDiffs     int
	FirstRepeatDiff string
}

// NewHarness allocates the input and output buffers for the largest size (reducing it,
// with a note, if the GPU lacks the memory) and shares them with every rank.
func NewHarness(c collectives.Collective, g device.GPU, m *channels.Mesh, s device.Stream, o Options, rep Reporter) (*Harness, error) {
	h := &Harness{Coll: c, GPU: g, Mesh: m, Stream: s, Opts: o, instances: map[*collectives.Algorithm]collectives.Instance{}, seed: 1}
	maxBytes := int64(0)
	for _, sz := range o.Sizes {
		maxBytes = max(maxBytes, sz)
	}
	// In + Out + scratch of up to about the same again (and the repeat check's copy of an
	// output), with 1 GiB to spare.
	parts := int64(3)
	if o.RepeatCheck {
		parts = 4
	}
	lim, err := agreeMemoryBudget(g, m, parts)
	if err != nil {
		return nil, err
	}
	if budget := lim.budget; maxBytes > budget {
		budget = max(budget&^(1<<20-1), 0)
		var kept []int64
		for _, sz := range o.Sizes {
			if sz <= budget {
				kept = append(kept, sz)
			}
		}
		if len(kept) == 0 && len(o.Sizes) > 0 {
			// Nothing would run: a sweep of no rows that exits 0 reads as a pass.
			return nil, fmt.Errorf("no size of the sweep fits in GPU memory: the smallest, %d bytes (-b), is above %d, the most that rank %d's %d free bytes hold (the buffers of that size, with 1 GiB spare)",
				slices.Min(o.Sizes), budget, lim.rank, lim.free)
		}
		rep.Note("Reducing maxBytes to %d due to memory limitation", budget)
		h.Opts.Sizes, maxBytes = kept, budget
	}
	h.Pad = uint64(o.Unalign) * collectives.MaxTypeSize // room for -u's offset, for every type
	bufBytes := algo.RoundUp(uint64(max(maxBytes, 16))+h.Pad, 256)
	in, err := m.Alloc(bufBytes)
	if err != nil {
		return nil, err
	}
	out, err := m.Alloc(bufBytes)
	if err != nil {
		return nil, err
	}
	inAll, err := m.Share(in, bufBytes)
	if err != nil {
		return nil, err
	}
	outAll, err := m.Share(out, bufBytes)
	if err != nil {
		return nil, err
	}
	wrong, err := m.Alloc(8)
	if err != nil {
		return nil, err
	}
	sms := g.Info().SMs
	if o.SMs > 0 && o.SMs < sms {
		sms = o.SMs
	}
	h.Env = &collectives.Env{GPU: g, Mesh: m, Rank: m.Rank, NRanks: m.NRanks, SMs: sms, MaxBytes: maxBytes,
		In: inAll, Out: outAll, InBytes: bufBytes, OutBytes: bufBytes, Layout: collectives.LayoutOf(m)}
	h.Env.Layout.GPUSharing = o.Sharing
	h.verifier = &collectives.Verifier{GPU: g, Env: h.Env, Stream: s, Wrong: wrong, Grid: sms * 4}
	return h, nil
}

// memoryBudget is the largest message size the buffers may take on the rank with the
// least free GPU memory: its free memory less 1 GiB, shared by the buffers of that size.
type memoryBudget struct {
	budget int64  // bytes; negative when even the spare GiB is not free
	rank   int    // the rank it comes from
	free   uint64 // that rank's free bytes
}

// agreeMemoryBudget gathers every rank's free memory and returns the smallest budget for
// parts buffers of the message size, so that every rank keeps the same sizes (ranks that
// kept different sweeps would wait on each other forever) and a rank short of memory
// limits the others.
func agreeMemoryBudget(g device.GPU, m *channels.Mesh, parts int64) (memoryBudget, error) {
	free, _, err := g.MemInfo()
	if err != nil {
		return memoryBudget{}, err
	}
	lim := memoryBudget{budget: (int64(free) - 1<<30) / parts, rank: m.Rank, free: free}
	if m.Boot == nil || m.NRanks < 2 {
		return lim, nil
	}
	all, err := m.Boot.AllGather(binary.LittleEndian.AppendUint64(nil, free))
	if err != nil {
		return memoryBudget{}, fmt.Errorf("share free GPU memory: %w", err)
	}
	for r, b := range all {
		if len(b) != 8 {
			return memoryBudget{}, fmt.Errorf("share free GPU memory: rank %d sent %d bytes, want 8", r, len(b))
		}
		f := binary.LittleEndian.Uint64(b)
		if budget := (int64(f) - 1<<30) / parts; r == 0 || budget < lim.budget {
			lim = memoryBudget{budget: budget, rank: r, free: f}
		}
	}
	return lim, nil
}

// Close releases the algorithm instances.
func (h *Harness) Close() error {
	var first error
	for _, inst := range h.instances {
		if err := inst.Close(); err != nil && first == nil {
			first = err
		}
	}
	for _, e := range h.events {
		if err := h.GPU.DestroyEvent(e); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (h *Harness) instance(a *collectives.Algorithm) (collectives.Instance, error) {
	if inst, ok := h.instances[a]; ok {
		return inst, nil
	}
	inst, err := a.New(h.Env)
	if err != nil {
		return nil, fmt.Errorf("set up %s %s: %w", a.Collective, a.Name, err)
	}
	h.instances[a] = inst
	return inst, nil
}

// step is one table row to measure: alg out of place, and in place too unless inPlace is
// set (auto picked another algorithm there: AutoOutOfPlace).
type step struct {
	size    int64
	alg     *collectives.Algorithm
	inPlace *collectives.Algorithm
}

// label names the step's algorithms for the table's "# algorithm:" lines.
func (st step) label() string {
	s := fmt.Sprintf("%s (#%d)", st.alg.Name, st.alg.Number)
	if st.inPlace != nil {
		s += fmt.Sprintf(", in place %s (#%d)", st.inPlace.Name, st.inPlace.Number)
	}
	return s
}

func (h *Harness) plan(dt string) ([]step, error) {
	var out []step
	d, err := collectives.LookupDatatype(dt)
	if err != nil {
		return nil, err
	}
	off := collectives.UnalignOffset(h.Opts.Unalign, d) // -u: algorithms must handle it
	if h.Opts.Kernel == "all" {
		for _, a := range collectives.Algorithms(h.Coll.Name()) {
			for _, sz := range h.Opts.Sizes {
				if a.SupportsAt(sz, h.Env.Layout, dt, off) == nil {
					out = append(out, step{size: sz, alg: a})
				}
			}
		}
		return out, nil
	}
	for _, sz := range h.Opts.Sizes {
		algs, err := collectives.SelectAt(h.Coll.Name(), h.Opts.Kernel, sz, h.Env.Layout, dt, false, off)
		if err != nil {
			return nil, err
		}
		st := step{size: sz, alg: algs[0]}
		if h.Opts.Kernel == "auto" {
			in, err := collectives.SelectAt(h.Coll.Name(), "auto", sz, h.Env.Layout, dt, true, off)
			if err != nil {
				return nil, err
			}
			if in[0] != st.alg {
				st.inPlace = in[0]
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// Run measures every type, operator, size and placement.
func (h *Harness) Run(rep Reporter) (*Summary, error) {
	sum := &Summary{}
	ops := collectives.RunOps(h.Coll, h.Opts.Ops)
	plans := make([][]step, len(h.Opts.Datatypes))
	t := tally{sum: sum}
	for i, dtName := range h.Opts.Datatypes {
		var err error
		if plans[i], err = h.plan(dtName); err != nil {
			return nil, err
		}
		t.total += len(plans[i]) * len(ops)
	}
	if err := h.checkGroups(t.total); err != nil {
		return nil, err
	}
	for cycle := 1; h.Opts.Cycles < 0 || cycle <= max(h.Opts.Cycles, 1); cycle++ {
		// The summary's rows are the last cycle's (every cycle's are printed), so that a
		// long run's memory stays flat; wrong counts and bandwidth add up over all cycles.
		sum.Rows = sum.Rows[:0]
		if err := h.runCycle(rep, plans, ops, cycle == 1, &t); err != nil {
			return nil, err
		}
		if h.Opts.AfterCycle != nil {
			if err := h.Opts.AfterCycle(cycle); err != nil {
				return nil, err
			}
		}
	}
	if t.bwCount > 0 {
		sum.AvgBusBw = t.bwTotal / float64(t.bwCount)
	}
	return sum, nil
}

// warmupStep is the first step whose row moves data (the first step if none does).
func (h *Harness) warmupStep(steps []step, dt collectives.Datatype) step {
	for _, st := range steps {
		if h.Coll.Counts(st.size, dt, h.Env.NRanks).SizeBytes(dt.Size) > 0 {
			return st
		}
	}
	return steps[0]
}

// tally is what a sweep adds up as it goes.
type tally struct {
	sum         *Summary
	bwTotal     float64
	bwCount     int
	done, total int // measurements made, and per cycle
}

// runCycle measures every datatype, op and step once; first adds the discarded warm-up
// measurement of each datatype.
func (h *Harness) runCycle(rep Reporter, plans [][]step, ops []string, first bool, t *tally) error {
	for i, dtName := range h.Opts.Datatypes {
		dt, err := collectives.LookupDatatype(dtName)
		if err != nil {
			return err
		}
		steps := plans[i]
		if first && len(steps) > 0 {
			// One measurement to discard: the first timed loop of a process ran 2-3x slow
			// (seen at 8 B), as nccl-tests' warm-up before its sweep avoids. It is the first
			// step that moves data: a 0-byte row (allgather -b 8 on 2 ranks) warms nothing,
			// and across hosts the row after it then took single iterations of 0.4-0.5 ms.
			if _, _, err := h.measureOnly(h.warmupStep(steps, dt), dt, collectives.Op(ops[0])); err != nil {
				return fmt.Errorf("%s %s warm-up: %w", h.Coll.Name(), dtName, err)
			}
		}
		for _, opName := range ops {
			current := ""
			for _, st := range steps {
				if l := st.label(); l != current {
					current = l
					rep.Algorithm(l)
				}
				if h.Opts.Progress != nil && t.total > 0 {
					h.Opts.Progress(t.done%t.total, t.total, fmt.Sprintf("%s %s %s %d B (%s)", h.Coll.Name(), dtName, opName, st.size, st.alg.Name))
				}
				t.done++
				row, diffs, err := h.measure(st, dt, collectives.Op(opName))
				if err != nil {
					return fmt.Errorf("%s %s %s %d bytes (%s): %w", h.Coll.Name(), dtName, opName, st.size, st.alg.Name, err)
				}
				rep.Row(row)
				for _, d := range diffs {
					where := fmt.Sprintf("%s %s %s %d bytes %s (%s): %s", h.Coll.Name(), dtName, opName, st.size, d.placement, d.alg, d.what)
					rep.Note("repeat check: %s", where)
					if t.sum.RepeatDiffs == 0 {
						t.sum.FirstRepeatDiff = where
					}
					t.sum.RepeatDiffs++
				}
				t.sum.Rows = append(t.sum.Rows, row)
				for _, p := range []*results.Placement{row.OutOfPlace, row.InPlace} {
					t.sum.Wrong += max(p.Wrong, 0)
					t.bwTotal += p.BusBw
					t.bwCount++
				}
			}
		}
	}
	return nil
}

// repeatDiff is a placement whose repeat check found a difference.
type repeatDiff struct{ placement, alg, what string }

// measure measures one step's row, and with RepeatCheck checks both placements'
// repeatability (the row's Repeat column; the differences found).
func (h *Harness) measure(st step, dt collectives.Datatype, op collectives.Op) (results.Row, []repeatDiff, error) {
	return h.measureRow(st, dt, op, h.Opts.RepeatCheck)
}

// measureOnly is measure without the repeat check (the discarded warm-up).
func (h *Harness) measureOnly(st step, dt collectives.Datatype, op collectives.Op) (results.Row, []repeatDiff, error) {
	return h.measureRow(st, dt, op, false)
}

func (h *Harness) measureRow(st step, dt collectives.Datatype, op collectives.Op, repeat bool) (results.Row, []repeatDiff, error) {
	var diffs []repeatDiff
	n := h.Env.NRanks
	c := h.Coll.Counts(st.size, dt, n)
	root := -1
	if h.Coll.HasRoot() {
		root = h.Opts.Root
	}
	row := results.Row{Size: c.SizeBytes(dt.Size), Count: c.Param, Type: dt.Name, Op: collectives.OpLabel(h.Coll, op), Root: root, Algorithm: st.alg.Name}
	inst, err := h.instance(st.alg)
	if err != nil {
		return row, nil, err
	}
	instIn := inst
	if st.inPlace != nil {
		row.InPlaceAlgorithm = st.inPlace.Name
		if instIn, err = h.instance(st.inPlace); err != nil {
			return row, nil, err
		}
	}
	elt := uint64(dt.Size)
	for _, inPlace := range []bool{false, true} {
		launchOp := op
		if !h.Coll.HasOp() {
			launchOp = collectives.OpNone // -o only labels the rows of a collective that does not reduce
		}
		a := &collectives.LaunchArgs{Type: dt, Op: launchOp, Root: max(root, 0), Count: c.Send, Param: c.Param, SendBytes: uint64(c.Send) * elt,
			RecvBytes: uint64(c.Recv) * elt, InPlace: inPlace,
			SendInPlace: uint64(c.SendInPlace) * elt, RecvInPlace: uint64(c.RecvInPlace) * elt}
		pi := inst
		if inPlace {
			pi = instIn
		}
		p, err := h.measurePlacement(pi, a)
		if err != nil {
			return row, nil, fmt.Errorf("%s: %w", placementName(inPlace), err)
		}
		if repeat {
			what := ""
			if !Empty(a) {
				if what, err = h.repeatCheck(pi, a); err != nil {
					return row, nil, fmt.Errorf("%s: repeat check: %w", placementName(inPlace), err)
				}
			}
			row.Repeat = results.RepeatSame
			if what != "" {
				alg := st.alg.Name
				if inPlace && st.inPlace != nil {
					alg = st.inPlace.Name
				}
				diffs = append(diffs, repeatDiff{placementName(inPlace), alg, what})
			}
		}
		p.AlgBw, p.BusBw = h.Coll.Bandwidth(c, dt.Size, p.TimeUs/1e6, n)
		if inPlace {
			row.InPlace = p
		} else {
			row.OutOfPlace = p
		}
	}
	if len(diffs) > 0 {
		row.Repeat = results.RepeatDiffers
	}
	row.Timestamp = time.Now() // -S: when the row was measured
	return row, diffs, nil
}

func placementName(inPlace bool) string {
	if inPlace {
		return "in place"
	}
	return "out of place"
}

// At sets the offsets of iteration iter: like nccl-tests, successive iterations use
// successive regions of the buffers (so they do not all hit the same cache lines), here in
// 256-byte aligned steps so vector paths stay aligned; -u adds its offset to every one.
func (h *Harness) At(a *collectives.LaunchArgs, iter int) *collectives.LaunchArgs {
	b := *a
	unit := algo.RoundUp(max(a.SendBytes, a.RecvBytes, 1), 256)
	steps := (h.Env.OutBytes - h.Pad) / unit
	if steps < 1 {
		steps = 1
	}
	// -u: both buffers start Unalign elements later, as nccl-tests shifts its pointers.
	b.Shift = unit*(uint64(iter)%steps) + uint64(h.Opts.Unalign)*uint64(a.Type.Size)
	b.InOff, b.OutOff = b.InOffOf(h.Env.Rank), b.OutOffOf(h.Env.Rank)
	return &b
}

// Empty reports a call with nothing to move (a count of 0), which enqueues nothing, as
// NCCL does.
func Empty(a *collectives.LaunchArgs) bool { return a.SendBytes == 0 && a.RecvBytes == 0 }

func (h *Harness) launch(inst collectives.Instance, a *collectives.LaunchArgs) error {
	if Empty(a) {
		return nil
	}
	return inst.Launch(a, h.Stream)
}

func (h *Harness) sync() error { return h.Mesh.Sync(h.Stream) }

func (h *Harness) measurePlacement(inst collectives.Instance, base *collectives.LaunchArgs) (*results.Placement, error) {
	o := h.Opts
	agg := max(o.AggIters, 1)
	// No garbage collection inside timed loops: each launch allocates a little, and a
	// collection's pause landed in one 20-iteration loop now and then (a 7 µs row read 14 µs).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if Empty(base) {
		// An empty collective enqueues nothing (as NCCL does for a count of 0): there is no
		// graph to capture and nothing to wait for, so its time is the empty loop's, and
		// -I's iterations are timed on the host.
		iterUs := make([]float64, o.Iters)
		start := time.Now()
		for i := 0; i < o.Iters; i++ {
			t0 := time.Now()
			for j := 0; j < agg; j++ {
				if err := h.launch(inst, base); err != nil {
					return nil, err
				}
			}
			iterUs[i] = float64(time.Since(t0).Nanoseconds()) / 1e3 / float64(agg)
		}
		own := float64(time.Since(start).Nanoseconds()) / 1e3 / float64(o.Iters*agg)
		us, err := h.combine(own)
		if err != nil {
			return nil, err
		}
		p := &results.Placement{TimeUs: us, CPUTimeUs: own, Wrong: -1}
		if o.Check > 0 {
			p.Wrong = 0 // nothing to get wrong
		}
		if o.PerIter {
			if p.PerIter, err = h.iterStats(iterUs); err != nil {
				return nil, err
			}
		}
		return p, nil
	}
	for w := 0; w < o.Warmup; w++ {
		if err := h.launch(inst, h.At(base, w)); err != nil {
			return nil, err
		}
	}
	if err := h.sync(); err != nil {
		return nil, err
	}
	if err := h.Mesh.Boot.Barrier(); err != nil {
		return nil, err
	}
	var elapsed, cpu time.Duration // per graph launch, and the host's enqueue time (-C)
	var iterUs []float64           // -I
	if o.Graph > 0 {
		if err := h.GPU.BeginCapture(h.Stream); err != nil {
			return nil, err
		}
		var capErr error
		for i := 0; i < o.Iters*agg && capErr == nil; i++ {
			capErr = h.launch(inst, h.At(base, i))
		}
		g, err := h.GPU.EndCapture(h.Stream)
		if capErr != nil {
			if err == nil {
				_ = h.GPU.DestroyGraph(g)
			}
			return nil, capErr
		}
		if err != nil {
			return nil, err
		}
		defer h.GPU.DestroyGraph(g)
		if err := h.Mesh.Boot.Barrier(); err != nil {
			return nil, err
		}
		start := time.Now()
		for l := 0; l < o.Graph; l++ {
			if err := h.GPU.LaunchGraph(g, h.Stream); err != nil {
				return nil, err
			}
		}
		// nccl-tests' cputime in graph mode: launching every graph, per operation of one.
		cpu = time.Since(start)
		if err := h.sync(); err != nil {
			return nil, err
		}
		elapsed = time.Since(start) / time.Duration(o.Graph)
	} else {
		var err error
		if elapsed, cpu, iterUs, err = h.timedLoop(inst, base); err != nil {
			return nil, err
		}
	}
	us := float64(elapsed.Nanoseconds()) / 1e3 / float64(o.Iters*agg)
	us, err := h.combine(us)
	if err != nil {
		return nil, err
	}
	p := &results.Placement{TimeUs: us, CPUTimeUs: float64(cpu.Nanoseconds()) / 1e3 / float64(o.Iters*agg), Wrong: -1}
	if iterUs != nil {
		if p.PerIter, err = h.iterStats(iterUs); err != nil {
			return nil, err
		}
	}
	if o.Check > 0 {
		if p.Wrong, err = h.verify(inst, base); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// checkGroups makes sure, when the job runs in groups (Options.World), that every group
// measures as many placements: their times are combined over the whole job.
func (h *Harness) checkGroups(total int) error {
	if h.Opts.World == nil {
		return nil
	}
	all, err := h.Opts.World.AllGather(binary.LittleEndian.AppendUint64(nil, uint64(total)))
	if err != nil {
		return err
	}
	for r, b := range all {
		if len(b) != 8 {
			return fmt.Errorf("rank %d sent a %d-byte row count", r, len(b))
		}
		if n := binary.LittleEndian.Uint64(b); n != uint64(total) {
			return fmt.Errorf("rank %d's group measures %d rows, this rank's %d: with NCCL_TESTS_SPLIT groups must run the same sweep (-k all picks by each group's layout)", r, n, total)
		}
	}
	return nil
}

// combine turns every rank's time into the reported one (-a): the ranks of the whole job
// when it runs in groups (Options.World), as nccl-tests does.
func (h *Harness) combine(us float64) (float64, error) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], math.Float64bits(us))
	var gather AllGatherer = h.Mesh.Boot
	if h.Opts.World != nil {
		gather = h.Opts.World
	}
	all, err := gather.AllGather(b[:])
	if err != nil {
		return 0, err
	}
	vals := make([]float64, len(all))
	for r, a := range all {
		if len(a) != 8 {
			return 0, fmt.Errorf("rank %d sent a %d-byte time", r, len(a))
		}
		vals[r] = math.Float64frombits(binary.LittleEndian.Uint64(a))
	}
	return CombineTimes(vals, h.Opts.Average), nil
}

// CombineTimes applies nccl-tests' -a: 0 rank 0, 1 mean, 2 minimum, 3 maximum.
func CombineTimes(vals []float64, average int) float64 {
	switch average {
	case 0:
		return vals[0]
	case 2, 3:
		v := vals[0]
		for _, x := range vals[1:] {
			if (average == 2) == (x < v) {
				v = x
			}
		}
		return v
	}
	s := 0.0
	for _, x := range vals {
		s += x
	}
	return s / float64(len(vals))
}

// verify runs the collective Check times on fresh known inputs (poisoned outputs) and
// returns the number of wrong elements summed over all ranks.
func (h *Harness) verify(inst collectives.Instance, base *collectives.LaunchArgs) (int64, error) {
	a := h.At(base, 0)
	var total int64
	for c := 0; c < h.Opts.Check; c++ {
		h.seed++
		if err := h.Coll.InitData(h.verifier, a, h.seed); err != nil {
			return 0, err
		}
		if err := h.GPU.Memset(h.verifier.Wrong, 0, 8); err != nil {
			return 0, err
		}
		if err := h.sync(); err != nil {
			return 0, err
		}
		if err := h.Mesh.Boot.Barrier(); err != nil {
			return 0, err
		}
		if err := h.checkedLaunch(inst, a); err != nil {
			return 0, err
		}
		if err := h.Coll.Check(h.verifier, a, h.seed); err != nil {
			return 0, err
		}
		if err := h.sync(); err != nil {
			return 0, err
		}
		var w [8]byte
		if err := h.GPU.CopyFromDevice(w[:], h.verifier.Wrong); err != nil {
			return 0, err
		}
		all, err := h.Mesh.Boot.AllGather(w[:])
		if err != nil {
			return 0, err
		}
		for _, b := range all {
			total += int64(binary.LittleEndian.Uint64(b))
		}
		if total > 0 {
			break
		}
	}
	return total, nil
}

// checkedLaunch runs one collective the way it was timed: through a graph in graph mode.
func (h *Harness) checkedLaunch(inst collectives.Instance, a *collectives.LaunchArgs) error {
	if h.Opts.Graph == 0 {
		return h.launch(inst, a)
	}
	if err := h.GPU.BeginCapture(h.Stream); err != nil {
		return err
	}
	lerr := h.launch(inst, a)
	g, err := h.GPU.EndCapture(h.Stream)
	if lerr != nil {
		if err == nil {
			_ = h.GPU.DestroyGraph(g)
		}
		return lerr
	}
	if err != nil {
		return err
	}
	defer h.GPU.DestroyGraph(g)
	return h.GPU.LaunchGraph(g, h.Stream)
}
