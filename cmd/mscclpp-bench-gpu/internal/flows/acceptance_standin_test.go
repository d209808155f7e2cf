package flows

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/acceptance"
	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
)

// TestAcceptanceOneRankOnStandin runs acceptance's one-rank flow (the GPU's copies from
// and to pinned host memory and inside its memory) on the stand-in GPU, from the plan the
// front end makes of the command line, with floors from a spec file: floors the copies meet
// give a PASS with the figures in the table and the -J report, exit 0; a floor set far too
// high gives a FAIL that names the check, and exit 1 with one line.
func TestAcceptanceOneRankOnStandin(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		floor string // min_host_to_device_gbs
		code  int
		pass  bool
	}{
		{"floors met", "0.000001", cli.ExitOK, true},
		{"host-to-device floor too high", "1e9", cli.ExitFailure, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".yaml")
			body := "copy_bytes: 1048576\nmin_host_to_device_gbs: " + tt.floor + "\nmin_device_to_host_gbs: 0.000001\nmin_device_copy_gbs: 0.000001\n"
			if err := os.WriteFile(spec, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			jsonPath := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".json")
			jobs := standinJob(t, 1, nil)
			o := runPlan(t, jobs, planOf(t, "acceptance", "--spec", spec, "-n", "3", "-w", "1", "-J", jsonPath, "--progress", "off"))
			if o.codes[0] != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q\n%s", o.codes[0], tt.code, o.stderr[0], o.stdout)
			}
			if tt.code != cli.ExitOK {
				if err := oneLine(o.stderr[0]); err != nil {
					t.Error(err)
				}
				if !strings.Contains(o.stderr[0], "host-to-device copy") {
					t.Errorf("stderr %q does not name the failed check", o.stderr[0])
				}
			} else if o.stderr[0] != "" {
				t.Errorf("stderr %q, want none", o.stderr[0])
			}
			if !strings.Contains(o.stdout, "# mscclpp-bench acceptance on node") || !strings.Contains(o.stdout, spec) {
				t.Errorf("report does not name the node and the spec:\n%s", o.stdout)
			}
			var rep struct {
				Pass    bool `json:"pass"`
				Figures struct {
					Copies *struct {
						HostToDeviceGBs float64 `json:"host_to_device_gbs"`
						DeviceToHostGBs float64 `json:"device_to_host_gbs"`
						DeviceCopyGBs   float64 `json:"device_copy_gbs"`
						Bytes           int64   `json:"bytes"`
					} `json:"copies"`
				} `json:"figures"`
				Checks []struct {
					Name string `json:"name"`
					Pass bool   `json:"pass"`
				} `json:"checks"`
			}
			b, err := os.ReadFile(jsonPath)
			if err != nil {
				t.Fatalf("-J file: %v", err)
			}
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatalf("-J file: %v\n%s", err, b)
			}
			if rep.Pass != tt.pass {
				t.Errorf("-J pass %v, want %v", rep.Pass, tt.pass)
			}
			c := rep.Figures.Copies
			if c == nil || c.HostToDeviceGBs <= 0 || c.DeviceToHostGBs <= 0 || c.DeviceCopyGBs <= 0 {
				t.Errorf("-J copies %+v: want three measured rates", c)
			}
			seen := map[string]bool{}
			for _, ch := range rep.Checks {
				seen[ch.Name] = true
				if want := tt.pass || ch.Name != "host-to-device copy"; ch.Pass != want {
					t.Errorf("check %q pass %v, want %v", ch.Name, ch.Pass, want)
				}
			}
			for _, name := range []string{"host-to-device copy", "device-to-host copy", "device copy", "data verification"} {
				if !seen[name] {
					t.Errorf("no %q check in %+v", name, rep.Checks)
				}
			}
			verdict := "PASS"
			if !tt.pass {
				verdict = "FAIL"
			}
			if !strings.Contains(o.stdout, verdict) {
				t.Errorf("the table does not say %s:\n%s", verdict, o.stdout)
			}
		})
	}
}

// TestAcceptancePairsOnStandin runs acceptance's flow on a node of two stand-in ranks:
// rank 0 gathers the node, the pair's signal latency and put bandwidth over memory and
// port channels with the data checked, and judges them against the spec. Limits the pair
// meets give a PASS with its figures; a memory put floor far too high fails the run on
// rank 0 (which judges) with exit 1 and one line naming the check, the table saying FAIL.
func TestAcceptancePairsOnStandin(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		memPut   string // min_memory_put_gbs
		code     int
		failName string
	}{
		{"limits met", "0.000001", cli.ExitOK, ""},
		{"memory put floor too high", "1e9", cli.ExitFailure, acceptance.CheckMemoryPut},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
			body := "put_bytes: 65536\nmax_memory_signal_us: 1e6\nmax_port_signal_us: 1e6\nmin_port_put_gbs: 0.000001\nmin_memory_put_gbs: " + tt.memPut + "\n"
			if err := os.WriteFile(base+".yaml", []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			o := runPlan(t, standinJob(t, 2, pingpongKernels()), planOf(t, "acceptance", "--spec", base+".yaml", "-n", "3", "-w", "1", "-J", base+".json", "--progress", "off"))
			if o.codes[0] != tt.code || o.codes[1] != cli.ExitOK {
				t.Fatalf("exit codes %v, want %d on rank 0 and 0 on rank 1; stderr %q\n%s", o.codes, tt.code, o.stderr, o.stdout)
			}
			if tt.code != cli.ExitOK {
				if err := oneLine(o.stderr[0]); err != nil {
					t.Error(err)
				}
				if !strings.Contains(o.stderr[0], tt.failName) || !strings.Contains(o.stdout, "FAIL") {
					t.Errorf("stderr %q or the table does not name the failed check %q:\n%s", o.stderr[0], tt.failName, o.stdout)
				}
			}
			b, err := os.ReadFile(base + ".json")
			if err != nil {
				t.Fatalf("-J: %v", err)
			}
			var rep struct {
				Pass    bool `json:"pass"`
				Figures struct {
					Pairs []acceptance.PairFigures `json:"pairs"`
				} `json:"figures"`
				Checks []struct {
					Name string `json:"name"`
					Pass bool   `json:"pass"`
				} `json:"checks"`
			}
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatalf("-J: %v", err)
			}
			if rep.Pass != (tt.code == cli.ExitOK) {
				t.Errorf("-J pass %v, want %v", rep.Pass, tt.code == cli.ExitOK)
			}
			if len(rep.Figures.Pairs) != 1 {
				t.Fatalf("-J pairs %+v, want the pair 0-1", rep.Figures.Pairs)
			}
			p := rep.Figures.Pairs[0]
			if p.A != 0 || p.B != 1 || p.Err != "" || p.Wrong != 0 || p.MemorySignalUs <= 0 || p.PortSignalUs <= 0 || p.MemoryPutGBs <= 0 || p.PortPutGBs <= 0 {
				t.Errorf("pair figures %+v: want 0-1 measured, nothing wrong", p)
			}
			seen := map[string]bool{}
			for _, c := range rep.Checks {
				seen[c.Name] = true
				if c.Name == tt.failName && c.Pass {
					t.Errorf("check %q passed", c.Name)
				}
			}
			for _, name := range []string{acceptance.CheckMemorySignal, acceptance.CheckPortSignal, acceptance.CheckMemoryPut, acceptance.CheckPortPut, acceptance.CheckVerification} {
				if !seen[name] {
					t.Errorf("no %q check in %+v", name, rep.Checks)
				}
			}
		})
	}
}
