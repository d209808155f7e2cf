package results

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Device describes one rank's GPU, as listed under "# Using devices".
type Device struct {
	Rank     int    // global rank
	Group    int    // nccl-tests "color" group, 0 for us
	Pid      int    // process id
	Hostname string // host name
	Device   int    // CUDA device ordinal
	BusID    string // PCI address such as "0000:00:06"
	Name     string // device name such as "NVIDIA H200"
	// CPUs the rank was bound to ("0", "0-31") and where its proxy thread runs; empty for
	// nccl-tests' files.
	CPUs      string
	ProxyCPUs string
}

// Header holds the run parameters printed before the results table and
// stored under "config" in the JSON report.
type Header struct {
	Program    string // program name, e.g. "mscclpp-bench"
	Version    string // program version, e.g. "0.1.0"
	Extra      string // free text appended to the version line, e.g. "cuda-driver=13000"
	Collective string // nccl-tests test name, e.g. "all_reduce_perf"
	NThreads   int    // threads per process (always 1 for us)
	NGPUs      int    // GPUs per thread (always 1 for us)
	MinBytes   int64  // smallest message size
	MaxBytes   int64  // largest message size
	// StepFactor > 1 selects geometric stepping ("step: 2(factor)");
	// otherwise StepBytes is printed ("step: 1048576(bytes)"). Like
	// nccl-tests, a factor of 1 counts as "no factor".
	StepFactor int64
	StepBytes  int64 // additive step, used when StepFactor <= 1
	Warmup     int   // warm-up iterations
	Iters      int   // timed iterations
	AggIters   int   // operations aggregated per iteration
	Check      int   // validation (nccl-tests -c)
	Graph      int   // CUDA graph launches (nccl-tests -G)
	Unalign    int   // forced misalignment in elements (nccl-tests -u)
	Devices    []Device

	// nccl-tests' options that change the report's layout or add header lines.
	Blocking     int  // -z: 1, 2 and 3 print nccl-tests' "Blocking Enabled" line
	PerIter      bool // -I: per-iteration columns and a header line
	PerIterSkip  int  // -K: iterations left out of the per-iteration statistics
	ParallelInit bool // -p, as given (JSON "parallel_init")
	CPUTime      bool // -C: the time columns hold the host's launch time ("cputime")
	Timestamps   bool // -S: a timestamp column after the in-place group
	RepeatCheck  bool // --repeat-check: a "repeat" column at the end of each row
	// Notes are extra "# " lines after nccl-tests' option lines, before the device list:
	// for options accepted for compatibility that have no effect here.
	Notes []string
}

// Placement is the measurement of one buffer placement (out-of-place or
// in-place) of a row.
type Placement struct {
	TimeUs float64 // average time per operation, microseconds
	AlgBw  float64 // algorithm bandwidth, GB/s
	BusBw  float64 // bus bandwidth, GB/s
	// Wrong is the number of wrong elements; -1 means "not checked" and is
	// printed as N/A (and written as JSON null), like nccl-tests without -c.
	Wrong int64
	// CPUTimeUs is the host's time to enqueue one operation (nccl-tests -C); printed in
	// place of TimeUs when Header.CPUTime is set.
	CPUTimeUs float64
	// PerIter is the per-iteration report (-I); nil without it.
	PerIter *IterStats
}

// Row is one line of the results table: one message size of one collective.
type Row struct {
	Size  int64  // bytes, as nccl-tests' "size" column
	Count int64  // elements
	Type  string // data type name, e.g. "float"
	Op    string // reduction name, e.g. "sum" or "none"
	Root  int    // root rank, -1 when not rooted
	// OutOfPlace may be nil: the row then starts its body with blank space,
	// as nccl-tests does when only in-place results exist.
	OutOfPlace *Placement
	// InPlace may be nil: nothing is printed for it.
	InPlace *Placement
	// Algorithm names the implementation measured. It is not part of the
	// text row (see TextPrinter.Algorithm) but is kept in JSON.
	Algorithm string
	// InPlaceAlgorithm names the in-place measurement's implementation where it differs
	// (-k auto picked another one in place); empty: Algorithm.
	InPlaceAlgorithm string
	// ActualIters is the JSON "actual_iterations"; 0 means Header.Iters.
	ActualIters int
	// Timestamp is when the row was measured, printed with Header.Timestamps (-S).
	Timestamp time.Time
	// Repeat is the repeat check's verdict on both placements (--repeat-check):
	// RepeatSame, RepeatDiffers, or "" when not checked. Printed with Header.RepeatCheck,
	// in a last column; "repeat_check" in JSON.
	Repeat string
}

// The repeat check's verdicts (Row.Repeat).
const (
	RepeatSame    = "ok"   // every run's output bitwise the first, on every rank that must agree
	RepeatDiffers = "diff" // some output differed (the report's note says where)
)

// Footer holds the summary printed after the results table.
type Footer struct {
	OutOfBounds int64   // number of values outside tolerance across the run
	AvgBusBw    float64 // average bus bandwidth over all rows, GB/s
	// MinBusBw, when CheckBusBw is set, is nccl-tests' NCCL_TESTS_MIN_BW: the footer says
	// OK or FAILED after the average, FAILED when it is below 90 % of MinBusBw.
	MinBusBw   float64
	CheckBusBw bool
	// Memory, when set, adds nccl-tests' "GPU memory usage" line (-M).
	Memory *MemoryUsage
}

// BusBwOK reports whether the average bus bandwidth meets MinBusBw as nccl-tests 2.19.6
// judges it (at least 90 % of it); true when CheckBusBw is not set.
func (f Footer) BusBwOK() bool {
	return !f.CheckBusBw || f.AvgBusBw >= f.MinBusBw*0.9
}

// TextPrinter writes nccl-tests style text output to an io.Writer as results
// arrive. It does not decide which rank prints; the caller does.
//
// Methods do not return errors: the first write error is kept, later
// writes are skipped, and Err reports it.
//
// The results column header is written lazily, just before the first Row,
// Algorithm line or the Footer, so that Notes issued right after Header land
// between the device list and the column header, where nccl-tests prints its
// "Reducing maxBytes" warning.
type TextPrinter struct {
	w          io.Writer
	err        error
	collective string
	layout     Header // the options that shape rows (PerIter, CPUTime, Timestamps)
	pendingCol bool   // Header was printed, column header not yet
	pingPong   bool   // PingPongHeader was printed: Footer has no bus bandwidth line
}

// NewTextPrinter returns a TextPrinter writing to w.
func NewTextPrinter(w io.Writer) *TextPrinter {
	return &TextPrinter{w: w}
}

// Err returns the first error met while writing, if any.
func (p *TextPrinter) Err() error { return p.err }

func (p *TextPrinter) printf(format string, args ...any) {
	if p.err != nil {
		return
	}
	if _, err := fmt.Fprintf(p.w, format, args...); err != nil {
		p.err = fmt.Errorf("results: write text output: %w", err)
	}
}

// Header prints the version line, the parameter line and the device list.
// The column header follows lazily (see TextPrinter).
func (p *TextPrinter) Header(h Header) {
	p.collective = h.Collective
	p.layout = h
	version := fmt.Sprintf("# %s version %s", h.Program, h.Version)
	if h.Extra != "" {
		version += " " + h.Extra
	}
	p.printf("%s\n", version)
	p.printf("# Collective test starting: %s\n", h.Collective)
	step, unit := h.StepBytes, "bytes"
	if h.StepFactor > 1 {
		step, unit = h.StepFactor, "factor"
	}
	p.printf("# nThread %d nGpus %d minBytes %d maxBytes %d step: %d(%s) warmup iters: %d iters: %d agg iters: %d validation: %d graph: %d unalign: %d\n",
		h.NThreads, h.NGPUs, h.MinBytes, h.MaxBytes, step, unit,
		h.Warmup, h.Iters, h.AggIters, h.Check, h.Graph, h.Unalign)
	switch h.Blocking {
	case 1:
		p.printf("# Blocking Enabled: wait and barrier after each inner iteration (-m) \n")
	case 2:
		p.printf("# Blocking Enabled: wait after each inner iteration (-m), no barrier \n")
	case 3:
		p.printf("# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier \n")
	}
	if h.PerIter {
		skip := ""
		if h.PerIterSkip > 0 {
			skip = fmt.Sprintf("; summary skips first %d iterations", h.PerIterSkip)
		}
		p.printf("# Per-Iteration Report: CUDA event timing; i_* uses max over process rows%s \n", skip)
	}
	for _, n := range h.Notes {
		p.Note("%s", n)
	}
	p.printf("#\n")
	p.printf("# Using devices\n")
	for _, d := range h.Devices {
		p.printf("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s\n",
			d.Rank, d.Group, d.Pid, d.Hostname, d.Device, d.BusID, d.Name)
	}
	for i, d := range h.Devices {
		if d.CPUs == "" {
			continue
		}
		if i == 0 {
			p.printf("# CPU binding (mpirun's; the proxy thread drives port channels)\n")
		}
		p.printf("#  Rank %2d CPUs %s proxy %s\n", d.Rank, d.CPUs, d.ProxyCPUs)
	}
	p.pendingCol = true
}

// columnHeader prints the pending "#" line and three-line column header.
func (p *TextPrinter) columnHeader() {
	if !p.pendingCol {
		return
	}
	p.pendingCol = false
	h := p.layout
	timeLabel, tsLabel, tsUnit, tsPad := "time", "", "", 0
	if h.CPUTime {
		timeLabel = "cputime"
	}
	if h.Timestamps {
		tsLabel, tsUnit, tsPad = "timestamp", "%Y-%m-%d %H:%M:%S", 19
	}
	p.printf("#\n")
	lead := fmt.Sprintf("# %10s  %12s  %8s  %6s  %6s", "", "", "", "", "")
	repLabel, repUnit := "", ""
	if h.RepeatCheck {
		repLabel, repUnit = " "+repeatLabel, " "+strings.Repeat(" ", len(repeatLabel))
	}
	if h.PerIter {
		p.printf("%s              out-of-place (+ per-iteration)                                in-place (+ per-iteration)\n", lead)
		group := func(a, b, c, d, e, f, g, i string) string {
			return fmt.Sprintf("  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s", a, b, c, d, e, f, g, i)
		}
		p.printf("# %10s  %12s  %8s  %6s  %6s%s%s %*s%s\n", "size", "count", "type", "redop", "root",
			group(timeLabel, "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%"),
			group(timeLabel, "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%"), tsPad, tsLabel, repLabel)
		p.printf("# %10s  %12s  %8s  %6s  %6s%s%s %*s\n", "(B)", "(elements)", "", "", "",
			group("(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)"),
			group("(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)"), tsPad, tsUnit)
		return
	}
	p.printf("%s           out-of-place                       in-place          \n", lead)
	p.printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s%s\n",
		"size", "count", "type", "redop", "root",
		timeLabel, "algbw", "busbw", "#wrong", timeLabel, "algbw", "busbw", "#wrong", tsPad, tsLabel, repLabel)
	p.printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s%s\n",
		"(B)", "(elements)", "", "", "",
		"(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", tsPad, tsUnit, strings.TrimRight(repUnit, " "))
}

// repeatLabel heads the repeat check's column.
const repeatLabel = "repeat"

// Algorithm prints the comment line "#  algorithm: NAME". Call it whenever
// the algorithm of the following rows changes; nccl-tests parsers skip
// lines starting with '#'.
func (p *TextPrinter) Algorithm(name string) {
	p.columnHeader()
	p.printf("#  algorithm: %s\n", name)
}

// Note prints a comment line "# " followed by the formatted text; an empty
// result prints a bare "#".
func (p *TextPrinter) Note(format string, args ...any) {
	msg := strings.TrimRight(fmt.Sprintf(format, args...), "\n")
	if msg == "" {
		p.printf("#\n")
		return
	}
	p.printf("# %s\n", msg)
}

// Row prints one data line exactly as nccl-tests does.
func (p *TextPrinter) Row(r Row) {
	p.columnHeader()
	var b strings.Builder
	fmt.Fprintf(&b, "%12d  %12d  %8s  %6s  %6d", r.Size, r.Count, r.Type, r.Op, r.Root)
	if r.OutOfPlace == nil {
		b.WriteString(strings.Repeat(" ", 32))
	} else {
		p.writePlacement(&b, r.OutOfPlace)
	}
	if r.InPlace != nil {
		p.writePlacement(&b, r.InPlace)
	}
	if p.layout.Timestamps && !r.Timestamp.IsZero() {
		b.WriteString(formatTimestamp(r.Timestamp))
	}
	if p.layout.RepeatCheck && r.Repeat != "" {
		fmt.Fprintf(&b, "  %*s", len(repeatLabel), r.Repeat)
	}
	p.printf("%s\n", b.String())
}

// writePlacement appends the time/algbw/busbw/#wrong group of one placement, and its
// per-iteration columns (-I).
func (p *TextPrinter) writePlacement(b *strings.Builder, pl *Placement) {
	t := pl.TimeUs
	if p.layout.CPUTime {
		t = pl.CPUTimeUs
	}
	fmt.Fprintf(b, "  %7s  %6s  %6s  %s",
		FormatTime(t), FormatBw(pl.AlgBw), FormatBw(pl.BusBw), FormatWrong(pl.Wrong))
	if s := pl.PerIter; s != nil && p.layout.PerIter {
		fmt.Fprintf(b, "  %7s  %7s  %7s  %7s", FormatTime(s.Min), FormatTime(s.Max), FormatTime(s.P99), FormatTime(s.CVPct))
	}
}

// Footer prints the out-of-bounds count, the average bus bandwidth and the
// closing lines. Like nccl-tests when NCCL reports no error, it ends with an
// empty line.
func (p *TextPrinter) Footer(f Footer) {
	p.columnHeader()
	status := "OK"
	if f.OutOfBounds != 0 {
		status = "FAILED"
	}
	p.printf("# %-20s : %d %s\n", "Out of bounds values", f.OutOfBounds, status)
	if !p.pingPong { // point to point has no bus bandwidth
		verdict := ""
		if f.CheckBusBw {
			verdict = "OK"
			if !f.BusBwOK() {
				verdict = "FAILED"
			}
		}
		p.printf("# %-20s : %s %s\n", "Avg bus bandwidth", strings.TrimSpace(formatG(f.AvgBusBw, 0)), verdict)
	}
	p.printf("#\n")
	p.printf("# Collective test concluded: %s\n", p.collective)
	if m := f.Memory; m != nil {
		p.printf("# %-20s : Initialization %s | User-Allocated %s | Collective %s | Total  %s\n", "GPU memory usage",
			FormatMemory(m.Init), FormatMemory(m.User), FormatMemory(m.Collective), FormatMemory(m.Init+m.User+m.Collective))
	}
	p.printf("#\n")
	p.printf("\n")
}
