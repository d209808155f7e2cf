package acceptance

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadSpec: any spec file, YAML or JSON, is read or refused without panicking, and
// what is read passes Validate (no negative or non-finite limits, positive sizes).
func FuzzLoadSpec(f *testing.F) {
	if b, err := os.ReadFile("testdata/h200-sxm.yaml"); err == nil {
		f.Add(b, false)
	}
	f.Add([]byte(`{"min_port_put_gbs": 100,}`), true)
	f.Add([]byte(`{"collectives": [{"collective": "allreduce", "size": "65G", "min_bus_bw": 1}]}`), true)
	f.Add([]byte("put_bytes: 99999999999999999999\nmax_port_signal_us: .nan\n"), false)
	f.Add([]byte("a: &x [*x]\n"), false)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, isJSON bool) {
		name := "spec.yaml"
		if isJSON {
			name = "spec.json"
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		spec, err := LoadSpec(path, builtinSpec(ModelH200SXM))
		if err != nil {
			return
		}
		if err := spec.Validate(); err != nil {
			t.Fatalf("LoadSpec returned a spec that fails Validate: %v", err)
		}
		for _, v := range []float64{spec.MaxMemorySignalUs, spec.MaxPortSignalUs, spec.MinMemoryPutGBs, spec.MinPortPutGBs} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("limit %v accepted", v)
			}
		}
	})
}
