package results

import (
	"fmt"
	"strings"
	"testing"
)

// TestReadJSONRefusesTrailingData: a results file is one JSON document. Two files joined
// into one, or a document followed by garbage, was read as its first document alone and
// compared or plotted as if nothing were wrong.
func TestReadJSONRefusesTrailingData(t *testing.T) {
	doc := `{"version":3,"results":[{"size":8,"count":2,"type":"float","redop":"sum","root":-1,` +
		`"out_of_place":{"time":1.0,"alg_bw":0.008,"bus_bw":0.008,"nwrong":0}}]}`
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"one document", doc, true},
		{"trailing newline and spaces", doc + "\n \t\r\n", true},
		{"two documents", doc + "\n" + doc, false},
		{"garbage after", doc + "garbage", false},
		{"a number after", doc + " 1", false},
		{"a stray brace", doc + "}", false},
		{"a second empty object", doc + "{}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadJSON(strings.NewReader(tt.in))
			if tt.ok {
				if err != nil {
					t.Fatalf("ReadJSON: %v", err)
				}
				return
			}
			want := fmt.Sprintf("unexpected data after the document's end at byte %d", len(doc))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("ReadJSON error = %v, want one containing %q", err, want)
			}
		})
	}
}
