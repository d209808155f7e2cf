package results

import (
	"os"
	"strings"
	"testing"
)

// TestReadJSONRefusesImpossibleFigures: a results file whose figures no measurement can
// have is refused with an error naming the row and field, instead of being compared or
// plotted (a negative size made rows vanish, negative figures passed as "n/a").
func TestReadJSONRefusesImpossibleFigures(t *testing.T) {
	row := func(size, placement string) string {
		return `{"version":3,"results":[{"size":8,"count":2,"type":"float","redop":"sum","root":-1,` +
			`"out_of_place":{"time":1.0,"alg_bw":0.008,"bus_bw":0.008,"nwrong":0}},` +
			`{"size":` + size + `,"count":4,"type":"float","redop":"sum","root":-1,"out_of_place":` + placement + `}]}`
	}
	ok := `{"time":2.0,"alg_bw":0.5,"bus_bw":0.5,"nwrong":0}`
	pp := func(fields string) string {
		return `{"version":3,"results":[],"pingpong":[{"pair":"0-1","channel":"memory","mode":"put","size":8,` + fields + `}]}`
	}
	tests := []struct {
		name, doc, want string
	}{
		{"negative size", row("-16", ok), "results[1] (size -16): size is negative"},
		{"negative time", row("16", `{"time":-2.0,"alg_bw":0.5,"bus_bw":0.5,"nwrong":0}`), "results[1] (size 16): out_of_place.time -2"},
		{"negative busbw", row("16", `{"time":2.0,"alg_bw":0.5,"bus_bw":-0.5,"nwrong":0}`), "out_of_place.bus_bw -0.5"},
		{"nan busbw", row("16", `{"time":2.0,"alg_bw":0.5,"bus_bw":"nan","nwrong":0}`), "out_of_place.bus_bw NaN"},
		{"inf algbw", row("16", `{"time":2.0,"alg_bw":"inf","bus_bw":0.5,"nwrong":0}`), "out_of_place.alg_bw +Inf"},
		{"beyond float64", row("16", `{"time":2.0,"alg_bw":0.5,"bus_bw":1e400,"nwrong":0}`), "bad number 1e400"},
		{"negative nwrong", row("16", `{"time":2.0,"alg_bw":0.5,"bus_bw":0.5,"nwrong":-3}`), "out_of_place.nwrong -3: want a whole number"},
		{"fractional nwrong", row("16", `{"time":2.0,"alg_bw":0.5,"bus_bw":0.5,"nwrong":0.5}`), "out_of_place.nwrong 0.5"},
		{"infinite nwrong", row("16", `{"time":2.0,"alg_bw":0.5,"bus_bw":0.5,"nwrong":"inf"}`), "nwrong +Inf"},
		{"ping-pong negative size", `{"version":3,"results":[],"pingpong":[{"pair":"0-1","channel":"memory","mode":"put","size":-8,"time":1,"latency_us":1,"alg_bw":1,"nwrong":0}]}`, "pingpong[0] (size -8): size is negative"},
		{"ping-pong nan latency", pp(`"time":1,"latency_us":"nan","alg_bw":1,"nwrong":0`), "pingpong[0] (size 8): latency_us NaN"},
		{"ping-pong negative nwrong", pp(`"time":1,"latency_us":1,"alg_bw":1,"nwrong":-1`), "pingpong[0] (size 8): nwrong -1"},
		{"no results list", `{"version":3}`, `not a results file: it has no "results" list`},
		{"acceptance report", `{"spec":{},"figures":{"node":{}},"checks":[],"pass":true}`, "acceptance report (acceptance -J), not a results file: give the -J file of a collective"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadJSON(strings.NewReader(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadJSON error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	// The same rows with possible figures are read; "nan" and null nwrong mean not checked.
	for _, doc := range []string{
		row("16", ok),
		row("16", `{"time":2.0,"alg_bw":0.0,"bus_bw":0.0,"nwrong":null}`),
		row("16", `{"time":2.0,"alg_bw":1e300,"bus_bw":0.5,"nwrong":"nan"}`),
		pp(`"time":1,"latency_us":1,"alg_bw":1,"nwrong":null`),
	} {
		if _, err := ReadJSON(strings.NewReader(doc)); err != nil {
			t.Errorf("ReadJSON(%s): %v", doc, err)
		}
	}
}

// TestReadJSONSaysWhatTheFileIs: a file that is not a JSON results file (nccl-tests' text
// output, an empty or cut-short file, a picture) is refused with a message that says what
// the file is and what is expected, not with the JSON decoder's words.
func TestReadJSONSaysWhatTheFileIs(t *testing.T) {
	text, err := os.ReadFile("testdata/h200x2-nccl2.28.3-mpi_all_reduce.txt") // nccl-tests' own
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, doc, want string
	}{
		{"nccl-tests text", string(text), "the file is text, as nccl-tests prints it (lines starting with '#'), not JSON; want the JSON results file that -J writes"},
		{"text after blank lines", "\n\n  # nccl-tests\n", "the file is text, as nccl-tests prints it"},
		{"empty", "", "the file is empty; want the JSON results file"},
		{"white space", " \n\t\n", "the file is empty; want the JSON results file"},
		{"cut short", `{"results": [{"size": 8`, "the file ends inside its JSON document (cut short?); want the JSON results file"},
		{"an SVG", `<svg xmlns="http://www.w3.org/2000/svg"></svg>`, "the file is not JSON (byte 1: invalid character '<' looking for beginning of value); want the JSON results file"},
	}
	for _, tt := range tests {
		_, err := ReadJSON(strings.NewReader(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: ReadJSON error = %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// TestReadJSONTypeErrorsInJSONWords: a value of the wrong JSON kind is named by its key
// and the kind wanted, never with Go's type or struct names.
func TestReadJSONTypeErrorsInJSONWords(t *testing.T) {
	tests := []struct {
		doc, want string
	}{
		{`{"results": "x"}`, `"results" is a JSON string, want a list`},
		{`{"results": [{"size": "x"}]}`, `"results.size" is a JSON string, want a whole number`},
		{`{"results": [{"size": 1e30}]}`, `"results.size" is a JSON number 1e30, want a whole number in range`},
		{`{"results": [{"out_of_place": {"time": true}}]}`, `bad number true: want a number, "nan" or "inf"`},
		{`{"results": [{"out_of_place": {"time": "soon"}}]}`, `bad number "soon": want a number`},
		{`{"results": [{"root": "top"}]}`, `bad root "top": want a rank`},
		{`{"config": {"blocking_collectives": "maybe"}, "results": []}`, `bad boolean "maybe": want true or false`},
		{`[1, 2]`, "the document is a JSON array, not an object: want the JSON results file"},
	}
	for _, tt := range tests {
		_, err := ReadJSON(strings.NewReader(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: ReadJSON error = %v, want one containing %q", tt.doc, err, tt.want)
			continue
		}
		for _, goWord := range []string{"Go ", "json:", "jsonDoc", "jsonResult", "int64", "strconv", "results."} {
			if strings.Contains(strings.TrimPrefix(err.Error(), "results: read JSON: "), goWord) && !strings.Contains(tt.want, goWord) {
				t.Errorf("%s: %v names Go's %q", tt.doc, err, goWord)
			}
		}
	}
}
