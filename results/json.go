package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/internal/clip"
)

// JSONVersion is the nccl-tests JSON format version we write.
const JSONVersion = 3

// TimeLayout is the layout of "start_time" and "end_time" (nccl-tests'
// "%Y-%m-%d %H:%M:%S", local time).
const TimeLayout = "2006-01-02 15:04:05"

// Report is everything stored in a JSON results file.
//
// Fields beyond nccl-tests' format are written under keys of our own
// ("program", "program_version", "program_extra", "collective", "unalign", "repeat_check"
// in "config", "algorithm" and "repeat_check" in each result, "pingpong"), each left out when
// empty, so a Report read from an nccl-tests file is written back with the
// same keys.
type Report struct {
	Header
	// Args is the command line, program name first.
	Args []string
	// Env is nccl-tests' "env" list (NAME=value); we write none.
	Env []string
	// NCCLVersion is nccl-tests' "nccl_version" code. mscclpp-bench does
	// not use NCCL and leaves it 0; the key is always written so that
	// parsers expecting it keep working.
	NCCLVersion int
	Start, End  time.Time
	Rows        []Row
	PingPong    []PingPongRow
	Footer
	// Errors is the "errors" list. nccl-tests writes [""] when NCCL has no
	// last error; nil is written as [].
	Errors []string
}

// jsonFloat is a float written like nccl-tests' "%lf" (six decimals),
// without superfluous trailing zeros but always with a decimal point, so
// that the value reads back as a float in Python. NaN is written as the
// string "nan" as nccl-tests does; infinities as "inf"/"-inf".
type jsonFloat float64

// MarshalJSON implements json.Marshaler.
func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"nan"`), nil
	case math.IsInf(v, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-inf"`), nil
	}
	s := strconv.FormatFloat(v, 'f', 6, 64)
	s = strings.TrimRight(s, "0")
	if strings.HasSuffix(s, ".") {
		s += "0"
	}
	return []byte(s), nil
}

// UnmarshalJSON implements json.Unmarshaler; it accepts numbers and the
// strings "nan", "inf" and "-inf".
func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "nan", "-nan":
			*f = jsonFloat(math.NaN())
		case "inf", "+inf":
			*f = jsonFloat(math.Inf(1))
		case "-inf":
			*f = jsonFloat(math.Inf(-1))
		default:
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return fmt.Errorf("bad number %s: want a number, \"nan\" or \"inf\"", clip.Quote(s))
			}
			*f = jsonFloat(v)
		}
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("bad number %s: want a number, \"nan\" or \"inf\"", clip.String(string(b)))
	}
	*f = jsonFloat(v)
	return nil
}

// jsonRoot is the "root" field: nccl-tests writes it as the "%6d" string
// (e.g. "    -1"); a plain number is accepted on input.
type jsonRoot int

// MarshalJSON implements json.Marshaler.
func (r jsonRoot) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(fmt.Sprintf("%6d", int(r)))), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *jsonRoot) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("bad root %s: want a rank, a whole number", clip.String(string(b)))
	}
	*r = jsonRoot(v)
	return nil
}

// jsonBool is written as the strings "true"/"false", as nccl-tests does;
// real JSON booleans are accepted on input.
type jsonBool bool

// MarshalJSON implements json.Marshaler.
func (v jsonBool) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(strconv.FormatBool(bool(v)))), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (v *jsonBool) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	switch s {
	case "true", "1":
		*v = true
	case "false", "0", "null", "":
		*v = false
	default:
		return fmt.Errorf("bad boolean %s: want true or false", clip.String(string(b)))
	}
	return nil
}

// jsonDoc mirrors the top level of the file; field order is key order.
type jsonDoc struct {
	Version        int            `json:"version"`
	StartTime      string         `json:"start_time"`
	Args           []string       `json:"args"`
	Env            []string       `json:"env,omitempty"`
	NCCLVersion    int            `json:"nccl_version"`
	Program        string         `json:"program,omitempty"`
	ProgramVersion string         `json:"program_version,omitempty"`
	ProgramExtra   string         `json:"program_extra,omitempty"`
	Collective     string         `json:"collective,omitempty"`
	Config         jsonConfig     `json:"config"`
	Results        []jsonResult   `json:"results"`
	PingPong       []jsonPingPong `json:"pingpong,omitempty"`
	OutOfBounds    jsonOOB        `json:"out_of_bounds"`
	AvgBusBw       jsonAvgBw      `json:"average_bus_bandwidth"`
	Errors         []string       `json:"errors"`
	EndTime        string         `json:"end_time"`
	// An acceptance report's keys, read only to recognise one (see checkDoc).
	Figures json.RawMessage `json:"figures,omitempty"`
	Checks  json.RawMessage `json:"checks,omitempty"`
}

type jsonConfig struct {
	NThreads     int          `json:"nthreads"`
	NGPUs        int          `json:"ngpus"`
	MinBytes     int64        `json:"minimum_bytes"`
	MaxBytes     int64        `json:"maximum_bytes"`
	StepFactor   *int64       `json:"step_factor,omitempty"`
	StepBytes    *int64       `json:"step_bytes,omitempty"`
	Warmup       int          `json:"warmup_iters"`
	Iters        int          `json:"iterations"`
	AggIters     int          `json:"aggregated_iterations"`
	Validation   int          `json:"validation"`
	Graph        int          `json:"graph"`
	Blocking     jsonBool     `json:"blocking_collectives"`
	PerIter      jsonBool     `json:"per_iter_timing"`
	PerIterSkip  int          `json:"per_iter_skip"`
	ParallelInit jsonBool     `json:"parallel_init"`
	Unalign      int          `json:"unalign,omitempty"`
	RepeatCheck  bool         `json:"repeat_check,omitempty"`
	Devices      []jsonDevice `json:"devices"`
}

type jsonDevice struct {
	Rank       int    `json:"rank"`
	Group      int    `json:"group"`
	Pid        int    `json:"pid"`
	Hostname   string `json:"hostname"`
	Device     int    `json:"device"`
	DeviceHex  string `json:"device_hex"`
	DeviceInfo string `json:"device_info"`
	CPUs       string `json:"cpus,omitempty"`
	ProxyCPUs  string `json:"proxy_cpus,omitempty"`
}

type jsonResult struct {
	Size        int64          `json:"size"`
	Count       int64          `json:"count"`
	Type        string         `json:"type"`
	RedOp       string         `json:"redop"`
	Root        jsonRoot       `json:"root"`
	OutOfPlace  *jsonPlacement `json:"out_of_place"`
	OutPerIter  *jsonPerIter   `json:"out_of_place_per_iter,omitempty"`
	InPlace     *jsonPlacement `json:"in_place,omitempty"`
	InPerIter   *jsonPerIter   `json:"in_place_per_iter,omitempty"`
	ActualIters int            `json:"actual_iterations"`
	Experiment  string         `json:"experiment_name"`
	Algorithm   string         `json:"algorithm,omitempty"`
	// InPlaceAlg is the in-place measurement's algorithm where it differs from Algorithm.
	InPlaceAlg string `json:"in_place_algorithm,omitempty"`
	// RepeatCheck is the repeat check's verdict on the row ("ok", "diff"; --repeat-check).
	RepeatCheck string `json:"repeat_check,omitempty"`
}

type jsonPlacement struct {
	Time    *jsonFloat `json:"time,omitempty"`
	CPUTime *jsonFloat `json:"cpu_time,omitempty"` // nccl-tests -C: the host's time, in place of time
	AlgBw   jsonFloat  `json:"alg_bw"`
	BusBw   jsonFloat  `json:"bus_bw"`
	NWrong  *jsonFloat `json:"nwrong"`
}

// jsonPerIter is nccl-tests' "*_per_iter" object (-I).
type jsonPerIter struct {
	Skipped int           `json:"skipped_iterations"`
	Min     jsonFloat     `json:"min_us"`
	Max     jsonFloat     `json:"max_us"`
	Avg     jsonFloat     `json:"avg_us"`
	P50     jsonFloat     `json:"p50_us"`
	P95     jsonFloat     `json:"p95_us"`
	P99     jsonFloat     `json:"p99_us"`
	Stdev   jsonFloat     `json:"stdev_us"`
	CVPct   jsonFloat     `json:"cv_pct"`
	Times   []jsonFloat   `json:"times_us"`
	PerRank [][]jsonFloat `json:"per_process_max_times_us,omitempty"`
}

func floatsToJSON(v []float64) []jsonFloat {
	out := make([]jsonFloat, len(v))
	for i, x := range v {
		out[i] = jsonFloat(x)
	}
	return out
}

func floatsFromJSON(v []jsonFloat) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func perIterToJSON(p *Placement) *jsonPerIter {
	if p == nil || p.PerIter == nil {
		return nil
	}
	s := p.PerIter
	j := &jsonPerIter{Skipped: s.Skipped, Min: jsonFloat(s.Min), Max: jsonFloat(s.Max), Avg: jsonFloat(s.Avg),
		P50: jsonFloat(s.P50), P95: jsonFloat(s.P95), P99: jsonFloat(s.P99), Stdev: jsonFloat(s.Stdev),
		CVPct: jsonFloat(s.CVPct), Times: floatsToJSON(s.Times)}
	for _, r := range s.PerRank {
		j.PerRank = append(j.PerRank, floatsToJSON(r))
	}
	return j
}

func perIterFromJSON(j *jsonPerIter) *IterStats {
	if j == nil {
		return nil
	}
	s := &IterStats{Skipped: j.Skipped, Min: float64(j.Min), Max: float64(j.Max), Avg: float64(j.Avg),
		P50: float64(j.P50), P95: float64(j.P95), P99: float64(j.P99), Stdev: float64(j.Stdev),
		CVPct: float64(j.CVPct), Times: floatsFromJSON(j.Times)}
	for _, r := range j.PerRank {
		s.PerRank = append(s.PerRank, floatsFromJSON(r))
	}
	return s
}

type jsonPingPong struct {
	Pair      string     `json:"pair"`
	Channel   string     `json:"channel"`
	Mode      string     `json:"mode"`
	Size      int64      `json:"size"`
	Time      jsonFloat  `json:"time"`
	LatencyUs jsonFloat  `json:"latency_us"`
	AlgBw     jsonFloat  `json:"alg_bw"`
	NWrong    *jsonFloat `json:"nwrong"`
}

type jsonOOB struct {
	Count int64    `json:"count"`
	Okay  jsonBool `json:"okay"`
}

type jsonAvgBw struct {
	Bandwidth jsonFloat `json:"bandwidth"`
	Okay      string    `json:"okay"`
}

// avgBusBwOkay is "average_bus_bandwidth"'s "okay": "unchecked" without NCCL_TESTS_MIN_BW,
// else "true" or "false", as nccl-tests writes it.
func avgBusBwOkay(f Footer) string {
	if !f.CheckBusBw {
		return "unchecked"
	}
	return strconv.FormatBool(f.BusBwOK())
}

// wrongToJSON maps a wrong-element count to "nwrong": null when unchecked.
func wrongToJSON(wrong int64) *jsonFloat {
	if wrong < 0 {
		return nil
	}
	v := jsonFloat(wrong)
	return &v
}

// wrongFromJSON is the inverse of wrongToJSON.
func wrongFromJSON(v *jsonFloat) int64 {
	if v == nil || math.IsNaN(float64(*v)) {
		return -1
	}
	return int64(*v)
}

// placementToJSON writes p; with cpuTime (-C) its time is the host's, under "cpu_time",
// as nccl-tests writes it.
func placementToJSON(p *Placement, cpuTime bool) *jsonPlacement {
	if p == nil {
		return nil
	}
	out := &jsonPlacement{AlgBw: jsonFloat(p.AlgBw), BusBw: jsonFloat(p.BusBw), NWrong: wrongToJSON(p.Wrong)}
	if cpuTime {
		t := jsonFloat(p.CPUTimeUs)
		out.CPUTime = &t
	} else {
		t := jsonFloat(p.TimeUs)
		out.Time = &t
	}
	return out
}

func placementFromJSON(p *jsonPlacement) *Placement {
	if p == nil {
		return nil
	}
	out := &Placement{AlgBw: float64(p.AlgBw), BusBw: float64(p.BusBw), Wrong: wrongFromJSON(p.NWrong)}
	switch {
	case p.Time != nil:
		out.TimeUs = float64(*p.Time)
	case p.CPUTime != nil: // nccl-tests -C: the only time there is
		out.TimeUs = float64(*p.CPUTime)
	}
	if p.CPUTime != nil {
		out.CPUTimeUs = float64(*p.CPUTime)
	}
	return out
}

// nonNil returns s, or an empty slice so that it is written as [] not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// WriteJSON writes r as an nccl-tests compatible (version 3) JSON document,
// indented by one space per level, followed by a newline.
func WriteJSON(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("results: write JSON: nil report")
	}
	doc := jsonDoc{
		Version:        JSONVersion,
		StartTime:      formatTime(r.Start),
		Args:           nonNil(r.Args),
		Env:            r.Env,
		NCCLVersion:    r.NCCLVersion,
		Program:        r.Program,
		ProgramVersion: r.Version,
		ProgramExtra:   r.Extra,
		Collective:     r.Collective,
		Config: jsonConfig{
			NThreads:     r.NThreads,
			NGPUs:        r.NGPUs,
			MinBytes:     r.MinBytes,
			MaxBytes:     r.MaxBytes,
			Warmup:       r.Warmup,
			Iters:        r.Iters,
			AggIters:     r.AggIters,
			Validation:   r.Check,
			Graph:        r.Graph,
			Blocking:     r.Blocking != 0,
			PerIter:      jsonBool(r.PerIter),
			PerIterSkip:  r.PerIterSkip,
			ParallelInit: jsonBool(r.ParallelInit),
			Unalign:      r.Unalign,
			RepeatCheck:  r.RepeatCheck,
			Devices:      make([]jsonDevice, 0, len(r.Devices)),
		},
		Results:     make([]jsonResult, 0, len(r.Rows)),
		OutOfBounds: jsonOOB{Count: r.OutOfBounds, Okay: r.OutOfBounds == 0},
		AvgBusBw:    jsonAvgBw{Bandwidth: jsonFloat(r.AvgBusBw), Okay: avgBusBwOkay(r.Footer)},
		Errors:      nonNil(r.Errors),
		EndTime:     formatTime(r.End),
	}
	if r.StepFactor > 1 {
		doc.Config.StepFactor = &r.StepFactor
	} else {
		doc.Config.StepBytes = &r.StepBytes
	}
	for _, d := range r.Devices {
		doc.Config.Devices = append(doc.Config.Devices, jsonDevice{
			Rank: d.Rank, Group: d.Group, Pid: d.Pid, Hostname: d.Hostname,
			Device: d.Device, DeviceHex: d.BusID, DeviceInfo: d.Name,
			CPUs: d.CPUs, ProxyCPUs: d.ProxyCPUs,
		})
	}
	for _, row := range r.Rows {
		iters := row.ActualIters
		if iters == 0 {
			iters = r.Iters
		}
		doc.Results = append(doc.Results, jsonResult{
			Size: row.Size, Count: row.Count, Type: row.Type, RedOp: row.Op,
			Root:        jsonRoot(row.Root),
			OutOfPlace:  placementToJSON(row.OutOfPlace, r.CPUTime),
			OutPerIter:  perIterToJSON(row.OutOfPlace),
			InPlace:     placementToJSON(row.InPlace, r.CPUTime),
			InPerIter:   perIterToJSON(row.InPlace),
			ActualIters: iters,
			Algorithm:   row.Algorithm,
			InPlaceAlg:  row.InPlaceAlgorithm,
			RepeatCheck: row.Repeat,
		})
	}
	for _, pp := range r.PingPong {
		doc.PingPong = append(doc.PingPong, jsonPingPong{
			Pair: pp.Pair, Channel: pp.Channel, Mode: pp.Mode, Size: pp.Size,
			Time: jsonFloat(pp.TimeUs), LatencyUs: jsonFloat(pp.LatencyUs),
			AlgBw: jsonFloat(pp.BwGBs), NWrong: wrongToJSON(pp.Wrong),
		})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("results: write JSON: %w", err)
	}
	return nil
}

// atEOF reports whether nothing but white space follows the value dec has decoded.
func atEOF(dec *json.Decoder) bool {
	_, err := dec.Token()
	return err == io.EOF
}

// ReadJSON reads a JSON results file written by WriteJSON or by nccl-tests
// (-J), per-iteration records (-I) and "cpu_time" (-C) included. Keys it does
// not know are ignored; "root" may be a padded string or a number; a null
// "nwrong" becomes Wrong == -1; "cpu_time" is accepted in place of "time".
// Times are parsed in the local time zone, as nccl-tests writes them. A
// document without a "results" (or "pingpong") list is refused, as is one
// followed by anything but white space, and so are figures no measurement has
// (see checkDoc): negative sizes, negative or non-finite times and
// bandwidths, negative or fractional "nwrong". When
// the file has no "collective" key, Collective is taken from the program
// name in Args if it ends in "_perf" (e.g. "./build/all_reduce_perf").
func ReadJSON(rd io.Reader) (*Report, error) {
	var doc jsonDoc
	br := bufio.NewReader(rd)
	head, _ := br.Peek(512) // what the file starts with, for the error message
	dec := json.NewDecoder(br)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("results: read JSON: %w", notResults(err, head))
	}
	if end := dec.InputOffset(); !atEOF(dec) {
		return nil, fmt.Errorf("results: read JSON: unexpected data after the document's end at byte %d (two files joined, or a damaged file)", end)
	}
	if err := checkDoc(&doc); err != nil {
		return nil, fmt.Errorf("results: read JSON: %w", err)
	}
	r := &Report{
		Args:        doc.Args,
		Env:         doc.Env,
		NCCLVersion: doc.NCCLVersion,
		Errors:      doc.Errors,
		Header: Header{
			Program:      doc.Program,
			Version:      doc.ProgramVersion,
			Extra:        doc.ProgramExtra,
			Collective:   doc.Collective,
			NThreads:     doc.Config.NThreads,
			NGPUs:        doc.Config.NGPUs,
			MinBytes:     doc.Config.MinBytes,
			MaxBytes:     doc.Config.MaxBytes,
			Warmup:       doc.Config.Warmup,
			Iters:        doc.Config.Iters,
			AggIters:     doc.Config.AggIters,
			Check:        doc.Config.Validation,
			Graph:        doc.Config.Graph,
			PerIter:      bool(doc.Config.PerIter),
			PerIterSkip:  doc.Config.PerIterSkip,
			ParallelInit: bool(doc.Config.ParallelInit),
			Unalign:      doc.Config.Unalign,
			RepeatCheck:  doc.Config.RepeatCheck,
		},
		Footer: Footer{OutOfBounds: doc.OutOfBounds.Count, AvgBusBw: float64(doc.AvgBusBw.Bandwidth)},
	}
	if doc.Config.Blocking {
		r.Blocking = 1 // the file says only whether some blocking mode was on
	}
	if doc.Config.StepFactor != nil {
		r.StepFactor = *doc.Config.StepFactor
	}
	if doc.Config.StepBytes != nil {
		r.StepBytes = *doc.Config.StepBytes
	}
	if r.Collective == "" && len(r.Args) > 0 {
		if base := path.Base(r.Args[0]); strings.HasSuffix(base, "_perf") {
			r.Collective = base
		}
	}
	var err error
	if r.Start, err = parseTime(doc.StartTime); err != nil {
		return nil, fmt.Errorf("results: read JSON: start_time: %w", err)
	}
	if r.End, err = parseTime(doc.EndTime); err != nil {
		return nil, fmt.Errorf("results: read JSON: end_time: %w", err)
	}
	for _, d := range doc.Config.Devices {
		r.Devices = append(r.Devices, Device{
			Rank: d.Rank, Group: d.Group, Pid: d.Pid, Hostname: d.Hostname,
			Device: d.Device, BusID: d.DeviceHex, Name: d.DeviceInfo,
			CPUs: d.CPUs, ProxyCPUs: d.ProxyCPUs,
		})
	}
	for _, res := range doc.Results {
		row := Row{
			Size: res.Size, Count: res.Count, Type: res.Type, Op: res.RedOp,
			Root:             int(res.Root),
			OutOfPlace:       placementFromJSON(res.OutOfPlace),
			InPlace:          placementFromJSON(res.InPlace),
			Algorithm:        res.Algorithm,
			ActualIters:      res.ActualIters,
			InPlaceAlgorithm: res.InPlaceAlg,
			Repeat:           res.RepeatCheck,
		}
		if row.OutOfPlace != nil {
			row.OutOfPlace.PerIter = perIterFromJSON(res.OutPerIter)
		}
		if row.InPlace != nil {
			row.InPlace.PerIter = perIterFromJSON(res.InPerIter)
		}
		for _, p := range []*jsonPlacement{res.OutOfPlace, res.InPlace} {
			if p != nil && p.CPUTime != nil && p.Time == nil {
				r.CPUTime = true // nccl-tests -C
			}
		}
		r.Rows = append(r.Rows, row)
	}
	for _, pp := range doc.PingPong {
		r.PingPong = append(r.PingPong, PingPongRow{
			Pair: pp.Pair, Channel: pp.Channel, Mode: pp.Mode, Size: pp.Size,
			TimeUs: float64(pp.Time), LatencyUs: float64(pp.LatencyUs),
			BwGBs: float64(pp.AlgBw), Wrong: wrongFromJSON(pp.NWrong),
		})
	}
	return r, nil
}

// wantJSON says what a results reader expects.
const wantJSON = "want the JSON results file that -J writes (nccl-tests' or mscclpp-bench's -J FILE.json)"

// notResults turns the decoder's error for a file that starts with head into one that
// says what the file is and what is expected.
func notResults(err error, head []byte) error {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF) && len(bytes.TrimSpace(head)) == 0:
		return fmt.Errorf("the file is empty; %s", wantJSON)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("the file ends inside its JSON document (cut short?); %s", wantJSON)
	case bytes.HasPrefix(bytes.TrimSpace(head), []byte("#")):
		return fmt.Errorf("the file is text, as nccl-tests prints it (lines starting with '#'), not JSON; %s", wantJSON)
	case errors.As(err, &syn):
		return fmt.Errorf("the file is not JSON (byte %d: %v); %s", syn.Offset, syn, wantJSON)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		// In JSON's words: the decoder's own names Go types ("Go struct field
		// jsonResult.results.size of type int64").
		if typ.Field == "" {
			return fmt.Errorf("the document is a JSON %s, not an object: %s", typ.Value, wantJSON)
		}
		want := jsonKind(typ.Type)
		if want == "a whole number" && strings.HasPrefix(typ.Value, "number") {
			want += " in range"
		}
		return fmt.Errorf("%q is a JSON %s, want %s", typ.Field, typ.Value, want)
	}
	return err
}

// jsonKind names what JSON value a field of Go type t takes.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "another kind of value"
}

// formatTime formats t with TimeLayout; the zero time is written as "".
func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(TimeLayout)
}

// parseTime parses a TimeLayout string in local time; "" is the zero time.
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation(TimeLayout, s, time.Local)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse %q: %w", s, err)
	}
	return t, nil
}
