package results

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestReadJSONBaselines(t *testing.T) {
	tests := []struct {
		name       string
		collective string
		firstSize  int64
		firstTime  float64
		lastTime   float64 // out-of-place time of the 2 GiB row
		lastInBus  float64 // in-place busbw of the 2 GiB row
		inWrong    int64   // in-place wrong of the last row
		avgBusBw   float64
		start      string
	}{
		{"all_reduce", "all_reduce_perf", 8, 12.08495, 6369.073675, 338.864147, 0, 95.960195, "2026-11-22 02:47:00"},
		{"all_gather", "all_gather_perf", 0, 0.535425, 3781.609025, 303.374879, 0, 76.102706, "2026-11-22 02:47:13"},
		{"sendrecv", "sendrecv_perf", 8, 11.438175, 5896.725475, 362.981448, -1, 100.779022, "2026-11-22 02:47:22"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := readBaselineReport(t, tt.name)
			if r.Collective != tt.collective {
				t.Errorf("Collective = %q, want %q", r.Collective, tt.collective)
			}
			if len(r.Rows) != 29 {
				t.Fatalf("got %d rows, want 29", len(r.Rows))
			}
			first, last := r.Rows[0], r.Rows[len(r.Rows)-1]
			if first.Size != tt.firstSize || first.OutOfPlace.TimeUs != tt.firstTime {
				t.Errorf("first row size/time = %d/%v, want %d/%v", first.Size, first.OutOfPlace.TimeUs, tt.firstSize, tt.firstTime)
			}
			if last.Size != 2147483648 || last.OutOfPlace.TimeUs != tt.lastTime || last.InPlace.BusBw != tt.lastInBus {
				t.Errorf("last row = %+v / %+v", last.OutOfPlace, last.InPlace)
			}
			if last.Root != -1 || last.OutOfPlace.Wrong != 0 || last.InPlace.Wrong != tt.inWrong {
				t.Errorf("last row root/wrong = %d/%d/%d", last.Root, last.OutOfPlace.Wrong, last.InPlace.Wrong)
			}
			if last.ActualIters != 20 || r.Iters != 20 || r.Warmup != 5 || r.StepFactor != 2 || r.MaxBytes != 2147483648 {
				t.Errorf("config = %+v", r.Header)
			}
			if r.AvgBusBw != tt.avgBusBw || r.OutOfBounds != 0 || r.NCCLVersion != 22803 {
				t.Errorf("footer = %+v, nccl_version %d", r.Footer, r.NCCLVersion)
			}
			if got := r.Start.Format(TimeLayout); got != tt.start {
				t.Errorf("Start = %s, want %s", got, tt.start)
			}
			if len(r.Devices) != 2 || r.Devices[1].BusID != "0000:00:07" || r.Devices[1].Name != "NVIDIA H200" {
				t.Errorf("devices = %+v", r.Devices)
			}
		})
	}
}

// TestWriteJSONReproducesBaseline reads nccl-tests files and writes them
// back: without our own keys the output is the baseline, byte for byte.
func TestWriteJSONReproducesBaseline(t *testing.T) {
	for _, name := range []string{"all_reduce", "all_gather", "sendrecv"} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(baselinePrefix + name + ".json")
			if err != nil {
				t.Fatal(err)
			}
			r := readBaselineReport(t, name)
			r.Collective = "" // inferred from args, not stored by nccl-tests
			var buf bytes.Buffer
			if err := WriteJSON(&buf, r); err != nil {
				t.Fatal(err)
			}
			compareLines(t, strings.TrimRight(buf.String(), "\n"), strings.TrimRight(string(want), "\n"))
		})
	}
}

// sampleReport is a report as mscclpp-bench would write it.
func sampleReport() *Report {
	loc := time.Local
	return &Report{
		Header: Header{
			Program: "mscclpp-bench", Version: "0.1.0", Extra: "cuda-driver=13000",
			Collective: "all_reduce_perf", NThreads: 1, NGPUs: 1,
			MinBytes: 8, MaxBytes: 1 << 20, StepBytes: 4096,
			Warmup: 5, Iters: 20, AggIters: 1, Check: 1, Unalign: 0,
			Devices: []Device{
				{Rank: 0, Pid: 10, Hostname: "vm", Device: 0, BusID: "0000:00:06", Name: "NVIDIA H200"},
				{Rank: 1, Pid: 11, Hostname: "vm", Device: 1, BusID: "0000:00:07", Name: "NVIDIA H200", CPUs: "1", ProxyCPUs: "3 (own CPU)"},
			},
		},
		Args:  []string{"mscclpp-bench", "all_reduce", "-b", "8", "-e", "1M", "-J", "out/a&b<c>.json"},
		Start: time.Date(2026, 11, 22, 2, 47, 0, 0, loc),
		End:   time.Date(2026, 11, 22, 2, 48, 1, 0, loc),
		Rows: []Row{
			{Size: 8, Count: 2, Type: "float", Op: "sum", Root: -1, Algorithm: "allpair-packet", ActualIters: 20,
				OutOfPlace: &Placement{TimeUs: 12.08495, AlgBw: 0.000662, BusBw: 0.000662, Wrong: 0},
				InPlace:    &Placement{TimeUs: 11.11855, AlgBw: 0.00072, BusBw: 0.00072, Wrong: -1}},
			{Size: 1 << 20, Count: 1 << 18, Type: "float", Op: "sum", Root: 0, Algorithm: "ring", InPlaceAlgorithm: "tree", ActualIters: 7,
				InPlace: &Placement{TimeUs: 15.4, AlgBw: 68.11, BusBw: 68.11, Wrong: 3}},
		},
		PingPong: []PingPongRow{
			{Pair: "0-1", Channel: "memory", Mode: "signal", Size: 0, TimeUs: 4.5, LatencyUs: 2.25, BwGBs: 0, Wrong: -1},
			{Pair: "0-1", Channel: "port", Mode: "put-bidir", Size: 1 << 20, TimeUs: 20.5, LatencyUs: 10.25, BwGBs: 102.3, Wrong: 0},
		},
		Footer: Footer{OutOfBounds: 3, AvgBusBw: 34.055331},
		Errors: []string{"something failed"},
	}
}

func TestJSONRoundTrip(t *testing.T) {
	in := sampleReport()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, in); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"out/a&b<c>.json"`) {
		t.Errorf("args should not be HTML-escaped:\n%s", buf.String())
	}
	out, err := ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Start.Equal(in.Start) || !out.End.Equal(in.End) {
		t.Errorf("times = %v/%v, want %v/%v", out.Start, out.End, in.Start, in.End)
	}
	out.Start, out.End, in.Start, in.End = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("round trip mismatch:\n got %+v\nwant %+v", out, in)
	}
}

func TestWriteJSONDefaults(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, &Report{Header: Header{Iters: 20}, Rows: []Row{{Size: 8}}}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	res := doc["results"].([]any)[0].(map[string]any)
	checks := []struct {
		name string
		got  any
		want any
	}{
		{"args", doc["args"], []any{}},
		{"errors", doc["errors"], []any{}},
		{"nccl_version", doc["nccl_version"], 0.0},
		{"step_bytes", doc["config"].(map[string]any)["step_bytes"], 0.0},
		{"out_of_place", res["out_of_place"], nil},
		{"actual_iterations", res["actual_iterations"], 20.0},
		{"root", res["root"], "     0"},
		{"okay", doc["out_of_bounds"].(map[string]any)["okay"], "true"},
		{"start_time", doc["start_time"], ""},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
	for _, key := range []string{"program", "pingpong", "collective", "in_place", "algorithm"} {
		if strings.Contains(buf.String(), `"`+key+`"`) {
			t.Errorf("empty %q should be omitted", key)
		}
	}
}

// keyOrder lists the keys of the JSON object in data, in file order.
func keyOrder(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %v %v", tok, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// subObject returns the raw JSON at a path of keys and array indexes.
func subObject(t *testing.T, data []byte, path ...any) []byte {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			var m map[string]json.RawMessage
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			data = m[k]
		case int:
			var a []json.RawMessage
			if err := json.Unmarshal(data, &a); err != nil {
				t.Fatal(err)
			}
			data = a[k]
		}
	}
	return data
}

func without(keys []string, drop ...string) []string {
	var out []string
	for _, k := range keys {
		if !strings.Contains(" "+strings.Join(drop, " ")+" ", " "+k+" ") {
			out = append(out, k)
		}
	}
	return out
}

// TestJSONStructureMatchesBaseline checks that a report of ours has the
// baseline's keys, in the baseline's order, at every level, and only the
// documented extra keys on top.
func TestJSONStructureMatchesBaseline(t *testing.T) {
	base, err := os.ReadFile(baselinePrefix + "sendrecv.json")
	if err != nil {
		t.Fatal(err)
	}
	r := sampleReport()
	r.StepFactor = 2 // the baseline steps by factor
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	ours := buf.Bytes()
	extras := []string{"program", "program_version", "program_extra", "collective", "pingpong", "unalign", "algorithm", "in_place_algorithm"}
	paths := [][]any{
		nil,
		{"config"},
		{"config", "devices", 0},
		{"results", 0},
		{"results", 0, "out_of_place"},
		{"results", 0, "in_place"},
		{"out_of_bounds"},
		{"average_bus_bandwidth"},
	}
	for _, p := range paths {
		want := keyOrder(t, subObject(t, base, p...))
		got := keyOrder(t, subObject(t, ours, p...))
		if !reflect.DeepEqual(without(got, extras...), want) {
			t.Errorf("keys at %v:\n got %v\nwant %v", p, got, want)
		}
	}
	// Value kinds that parsers depend on.
	var doc map[string]any
	if err := json.Unmarshal(ours, &doc); err != nil {
		t.Fatal(err)
	}
	res := doc["results"].([]any)[0].(map[string]any)
	if _, ok := res["root"].(string); !ok {
		t.Errorf("root should be a string, got %T", res["root"])
	}
	if res["in_place"].(map[string]any)["nwrong"] != nil {
		t.Errorf("unchecked nwrong should be null")
	}
	cfg := doc["config"].(map[string]any)
	for _, k := range []string{"blocking_collectives", "per_iter_timing", "parallel_init"} {
		if cfg[k] != "false" {
			t.Errorf("config.%s = %#v, want \"false\"", k, cfg[k])
		}
	}
	if doc["average_bus_bandwidth"].(map[string]any)["okay"] != "unchecked" {
		t.Errorf("average_bus_bandwidth.okay should be \"unchecked\"")
	}
	if !strings.Contains(buf.String(), `"nwrong": 0.0`) {
		t.Errorf("nwrong should be written as a float like nccl-tests' %%lf")
	}
	pp := doc["pingpong"].([]any)[0].(map[string]any)
	wantPP := []string{"pair", "channel", "mode", "size", "time", "latency_us", "alg_bw", "nwrong"}
	if got := keyOrder(t, subObject(t, ours, "pingpong", 0)); !reflect.DeepEqual(got, wantPP) {
		t.Errorf("pingpong keys = %v, want %v", got, wantPP)
	}
	if pp["nwrong"] != nil || pp["latency_us"] != 2.25 {
		t.Errorf("pingpong[0] = %v", pp)
	}
}

// TestReadJSONTolerant feeds an unformatted nccl-tests style document with
// keys and spellings the baselines do not show.
func TestReadJSONTolerant(t *testing.T) {
	doc := `{"version":3,"start_time":"2026-01-02 03:04:05","args":["\/opt\/nccl-tests\/build\/reduce_perf","-b","8"],` +
		`"env":["A=1"],"nccl_version":22803,"config":{"nthreads":1,"ngpus":2,"minimum_bytes":8,"maximum_bytes":16,` +
		`"step_bytes":8,"warmup_iters":1,"iterations":2,"aggregated_iterations":1,"validation":0,"graph":0,` +
		`"blocking_collectives":"true","per_iter_timing":"false","per_iter_skip":0,"parallel_init":"false","devices":[]},` +
		`"results":[{"size":8,"count":2,"type":"float","redop":"sum","root":"     1","out_of_place":null,` +
		`"in_place":{"cpu_time":1.500000,"alg_bw":"0.5","bus_bw":0.000000,"nwrong":null},"actual_iterations":2,"experiment_name":"x",` +
		`"in_place_per_iter":{"min_us":1.0}},` +
		`{"size":16,"count":4,"type":"float","redop":"sum","root":2,"out_of_place":{"time":2.000000,"alg_bw":0.008000,"bus_bw":0.008000,"nwrong":5.000000},` +
		`"in_place":{"time":2.000000,"alg_bw":0.008000,"bus_bw":0.008000,"nwrong":0.000000},"actual_iterations":2,"experiment_name":""}],` +
		`"out_of_bounds":{"count":5,"okay":"false"},"average_bus_bandwidth":{"bandwidth":0.004000,"okay":"unchecked"},"errors":[],` +
		`"end_time":"2026-01-02 03:04:06"}`
	r, err := ReadJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if r.Collective != "reduce_perf" || r.StepBytes != 8 || r.StepFactor != 0 || r.NGPUs != 2 {
		t.Errorf("header = %+v", r.Header)
	}
	r0, r1 := r.Rows[0], r.Rows[1]
	if r0.OutOfPlace != nil || r0.Root != 1 || r0.InPlace.TimeUs != 1.5 || r0.InPlace.AlgBw != 0.5 || r0.InPlace.Wrong != -1 {
		t.Errorf("row 0 = %+v in-place %+v", r0, r0.InPlace)
	}
	if r1.Root != 2 || r1.OutOfPlace.Wrong != 5 || r1.InPlace.Wrong != 0 {
		t.Errorf("row 1 = %+v", r1)
	}
	if r.OutOfBounds != 5 || r.AvgBusBw != 0.004 {
		t.Errorf("footer = %+v", r.Footer)
	}
}

func TestReadJSONErrors(t *testing.T) {
	tests := []struct{ name, doc string }{
		{"not json", "# nccl-tests text"},
		{"bad root", `{"results":[{"root":"x"}]}`},
		{"bad time", `{"start_time":"yesterday"}`},
		{"bad number", `{"average_bus_bandwidth":{"bandwidth":"fast"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ReadJSON(strings.NewReader(tt.doc)); err == nil || !strings.HasPrefix(err.Error(), "results: read JSON") {
				t.Errorf("ReadJSON error = %v, want a wrapped error", err)
			}
		})
	}
	if err := WriteJSON(&bytes.Buffer{}, nil); err == nil {
		t.Error("WriteJSON(nil) should fail")
	}
}

func TestJSONFloatMarshal(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{12.08495, "12.08495"},
		{6369.073675, "6369.073675"},
		{0, "0.0"},
		{3, "3.0"},
		{1e-7, "0.0"},
		{0.0000006, "0.000001"}, // rounded at six decimals like %lf
		{1.0000004, "1.0"},
		{-2.5, "-2.5"},
		{2147483648, "2147483648.0"},
		{math.NaN(), `"nan"`},
		{math.Inf(1), `"inf"`},
		{math.Inf(-1), `"-inf"`},
	}
	for _, tt := range tests {
		got, err := jsonFloat(tt.v).MarshalJSON()
		if err != nil || string(got) != tt.want {
			t.Errorf("jsonFloat(%v) = %s, %v; want %s", tt.v, got, err, tt.want)
		}
	}
}
