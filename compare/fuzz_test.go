package compare

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// FuzzCompareFiles: any two files that read as results compare (or are refused with an
// error) and render as a table and a JUnit report without panicking.
func FuzzCompareFiles(f *testing.F) {
	small := []byte(`{"version":3,"results":[{"size":1048576,"count":262144,"type":"float","redop":"sum","root":-1,` +
		`"out_of_place":{"time":10,"alg_bw":100,"bus_bw":100,"nwrong":0},"algorithm":"rsag"}]}`)
	f.Add(small, small)
	f.Add(small, []byte(`{"version":3,"results":[{"size":1048576,"count":262144,"type":"float","redop":"sum","root":-1,`+
		`"out_of_place":{"time":0,"alg_bw":1e308,"bus_bw":1e308,"nwrong":3}}]}`))
	f.Add([]byte(`{"results":[],"pingpong":[{"pair":"0-1","channel":"memory","mode":"signal","size":0,"time":1,"latency_us":1,"alg_bw":0,"nwrong":null}]}`),
		[]byte(`{"results":[],"pingpong":[{"pair":"0-1","channel":"memory","mode":"signal","size":0,"time":0,"latency_us":0,"alg_bw":0,"nwrong":0}]}`))
	if b, err := os.ReadFile(ncclAllReduce); err == nil {
		f.Add(b, small)
	}
	f.Fuzz(func(t *testing.T, baseData, curData []byte) {
		base, err := results.ReadJSON(bytes.NewReader(baseData))
		if err != nil {
			return
		}
		cur, err := results.ReadJSON(bytes.NewReader(curData))
		if err != nil {
			return
		}
		for _, opt := range []Options{DefaultOptions(), {TimeTolerance: 0, BusBwTolerance: 1e308, Force: true, AnyAlgorithm: true}} {
			res, err := Compare(base, cur, opt)
			if err != nil {
				continue
			}
			if n := res.Counts.Improved + res.Counts.OK + res.Counts.Regressed + res.Counts.Missing + res.Counts.New + res.Counts.Wrong + res.Counts.NA; n != len(res.Rows) {
				t.Fatalf("%d verdicts for %d rows", n, len(res.Rows))
			}
			if err := WriteTable(io.Discard, res); err != nil {
				t.Fatalf("table: %v", err)
			}
			if err := WriteJUnit(io.Discard, res, "fuzz"); err != nil {
				t.Fatalf("JUnit: %v", err)
			}
		}
	})
}
