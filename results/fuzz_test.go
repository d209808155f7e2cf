package results

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
)

// FuzzReadJSON: any bytes either fail to read or give a report whose figures a run can
// have (see checkDoc), which writes and reads back.
func FuzzReadJSON(f *testing.F) {
	for _, name := range []string{"all_reduce", "sendrecv"} {
		if b, err := os.ReadFile(baselinePrefix + name + ".json"); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"version":3,"results":[{"size":-8,"out_of_place":{"time":1,"alg_bw":1,"bus_bw":1,"nwrong":0}}]}`))
	f.Add([]byte(`{"results":[{"size":8,"out_of_place":{"time":"nan","alg_bw":"inf","bus_bw":1e308,"nwrong":0.5}}]}`))
	f.Add([]byte(`{"results":[],"pingpong":[{"pair":"0-1","size":8,"time":1,"latency_us":-1,"alg_bw":1,"nwrong":null}]}`))
	f.Add([]byte(`{"spec":{},"figures":{},"checks":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "results: read JSON") {
				t.Fatalf("error without context: %v", err)
			}
			return
		}
		bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 }
		for i, row := range r.Rows {
			if row.Size < 0 || row.Count < 0 {
				t.Fatalf("row %d: size %d, count %d accepted", i, row.Size, row.Count)
			}
			for _, p := range []*Placement{row.OutOfPlace, row.InPlace} {
				if p != nil && (bad(p.TimeUs) || bad(p.AlgBw) || bad(p.BusBw) || p.Wrong < -1) {
					t.Fatalf("row %d: placement %+v accepted", i, *p)
				}
			}
		}
		for i, pp := range r.PingPong {
			if pp.Size < 0 || bad(pp.TimeUs) || bad(pp.LatencyUs) || bad(pp.BwGBs) || pp.Wrong < -1 {
				t.Fatalf("ping-pong row %d: %+v accepted", i, pp)
			}
		}
		var buf bytes.Buffer
		if err := WriteJSON(&buf, r); err != nil {
			t.Fatalf("an accepted report does not write: %v", err)
		}
		if _, err := ReadJSON(&buf); err != nil {
			t.Fatalf("a written report does not read back: %v", err)
		}
	})
}
