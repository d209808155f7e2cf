package acceptance

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
)

// writeFile writes content to name in a fresh directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func h200(t *testing.T) Spec {
	t.Helper()
	s, err := DefaultSpec("NVIDIA H200")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLoadSpec(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		base    func(*testing.T) Spec
		want    func(*testing.T) Spec
	}{
		{
			name: "YAML, every field",
			file: "spec.yaml",
			content: `# a whole spec
model: H100 PCIe
ranks: 4
require_peer_access: false
min_nvlinks: 0
put_bytes: 1G
max_memory_signal_us: 3.5
max_port_signal_us: 20
min_memory_put_gbs: 50
min_port_put_gbs: 45
collectives:
  - collective: allreduce
    size: 8
    max_time_us: 12
  - {collective: allgather, size: 256M, min_bus_bw: 40}
`,
			base: func(*testing.T) Spec { return Spec{} },
			want: func(*testing.T) Spec {
				return Spec{
					Model: "H100 PCIe", Ranks: 4, PutBytes: 1 << 30,
					MaxMemorySignalUs: 3.5, MaxPortSignalUs: 20, MinMemoryPutGBs: 50, MinPortPutGBs: 45,
					Collectives: []CollectiveLimit{
						{Collective: "allreduce", Size: 8, MaxTimeUs: 12},
						{Collective: "allgather", Size: 256 << 20, MinBusBw: 40},
					},
				}
			},
		},
		{
			name: "YAML, network and one-rank keys",
			file: "net.yaml",
			content: `network_link_fraction: 0.5
network_collectives:
  - {collective: alltoall, size: 64M, min_bus_bw: 2}
  - {collective: sendrecv, size: 8, max_time_us: 300}
copy_bytes: 64M
min_host_to_device_gbs: 20
min_device_to_host_gbs: 21
min_device_copy_gbs: 900.5
`,
			base: func(*testing.T) Spec { return Spec{} },
			want: func(*testing.T) Spec {
				return Spec{
					PutBytes: DefaultPutBytes, NetworkLinkFraction: 0.5, CopyBytes: 64 << 20,
					MinHostToDeviceGBs: 20, MinDeviceToHostGBs: 21, MinDeviceCopyGBs: 900.5,
					NetworkCollectives: []CollectiveLimit{
						{Collective: "alltoall", Size: 64 << 20, MinBusBw: 2},
						{Collective: "sendrecv", Size: 8, MaxTimeUs: 300},
					},
				}
			},
		},
		{
			name:    "YAML, partial override keeps the base",
			file:    "tweak.yml",
			content: "min_port_put_gbs: 350\nranks: 8\n",
			base:    h200,
			want: func(t *testing.T) Spec {
				s := h200(t)
				s.MinPortPutGBs, s.Ranks = 350, 8
				return s
			},
		},
		{
			name:    "JSON, partial override",
			file:    "spec.json",
			content: `{"min_nvlinks": 12, "put_bytes": "64M", "max_port_signal_us": 9.5}`,
			base:    h200,
			want: func(t *testing.T) Spec {
				s := h200(t)
				s.MinNVLinks, s.PutBytes, s.MaxPortSignalUs = 12, 64<<20, 9.5
				return s
			},
		},
		{
			name:    "JSON indented with tabs, collectives replace the list",
			file:    "SPEC.JSON",
			content: "{\n\t\"collectives\": [\n\t\t{\"collective\": \"allreduce\", \"size\": 268435456, \"min_bus_bw\": 250}\n\t]\n}\n",
			base:    h200,
			want: func(t *testing.T) Spec {
				s := h200(t)
				s.Collectives = []CollectiveLimit{{Collective: "allreduce", Size: 256 << 20, MinBusBw: 250}}
				return s
			},
		},
		{
			name:    "a base without put_bytes gets the default",
			file:    "h100-pcie.yaml",
			content: "model: H100 PCIe\nmin_port_put_gbs: 40\n",
			base:    func(*testing.T) Spec { return Spec{} },
			want: func(*testing.T) Spec {
				return Spec{Model: "H100 PCIe", PutBytes: 256 << 20, MinPortPutGBs: 40}
			},
		},
		{
			name:    "empty collectives list",
			file:    "none.yaml",
			content: "collectives: []\n",
			base:    h200,
			want: func(t *testing.T) Spec {
				s := h200(t)
				s.Collectives = []CollectiveLimit{}
				return s
			},
		},
		{
			name: "size suffixes",
			file: "sizes.yaml",
			content: `put_bytes: 1.5k
collectives:
  - {collective: allreduce, size: 1K, max_time_us: 1}
  - {collective: allreduce, size: 2m, max_time_us: 1}
  - {collective: allgather, size: "3G", min_bus_bw: 1}
  - {collective: allgather, size: 4096, min_bus_bw: 1}
  - {collective: allgather, size: 0x10, min_bus_bw: 1}
`,
			base: h200,
			want: func(t *testing.T) Spec {
				s := h200(t)
				s.PutBytes = 1536
				s.Collectives = []CollectiveLimit{
					{Collective: "allreduce", Size: 1 << 10, MaxTimeUs: 1},
					{Collective: "allreduce", Size: 2 << 20, MaxTimeUs: 1},
					{Collective: "allgather", Size: 3 << 30, MinBusBw: 1},
					{Collective: "allgather", Size: 4096, MinBusBw: 1},
					{Collective: "allgather", Size: 16, MinBusBw: 1},
				}
				return s
			},
		},
		{
			name:    "aliases",
			file:    "alias.yaml",
			content: "max_memory_signal_us: &lat 4\nmax_port_signal_us: *lat\n",
			base:    h200,
			want: func(t *testing.T) Spec {
				s := h200(t)
				s.MaxMemorySignalUs, s.MaxPortSignalUs = 4, 4
				return s
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.file, tt.content)
			got, err := LoadSpec(path, tt.base(t))
			if err != nil {
				t.Fatalf("LoadSpec: %v", err)
			}
			if want := tt.want(t); !reflect.DeepEqual(got, want) {
				t.Errorf("LoadSpec:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestLoadSpecDoesNotChangeBase(t *testing.T) {
	base := h200(t)
	path := writeFile(t, "s.yaml", "collectives:\n  - {collective: allreduce, size: 8, max_time_us: 1}\n")
	if _, err := LoadSpec(path, base); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(base, h200(t)) {
		t.Errorf("LoadSpec changed its base: %+v", base)
	}
}

func TestLoadSpecErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string // no file is written when "-"
		want    []string
	}{
		{"unknown key", "s.yaml", "model: H200 SXM\nmin_port_put: 300\n", []string{"s.yaml", "line 2", "min_port_put: unknown key"}},
		{"unknown key in a collective", "s.yaml", "collectives:\n  - collective: allreduce\n    size: 8\n    max_time: 3\n",
			[]string{"s.yaml", "line 4", "collectives[0].max_time: unknown key"}},
		{"unknown key in JSON", "s.json", `{"Model": "H200 SXM"}`, []string{"s.json", "Model: unknown key"}},
		{"repeated key", "s.yaml", "ranks: 2\nranks: 4\n", []string{"line 2", "ranks: given twice"}},
		{"negative limit", "s.yaml", "min_memory_put_gbs: -3\n", []string{"s.yaml", "min_memory_put_gbs: -3 is negative"}},
		{"infinite limit", "s.yaml", "max_port_signal_us: .inf\n", []string{"max_port_signal_us: +Inf is not a finite number"}},
		{"zero put bytes", "s.json", `{"put_bytes": 0}`, []string{"s.json", "put_bytes: 0 is not positive"}},
		{"link fraction above 1", "s.yaml", "network_link_fraction: 2.5\n", []string{"network_link_fraction: 2.5 is not from 0 to 1"}},
		{"negative link fraction", "s.yaml", "network_link_fraction: -0.1\n", []string{"network_link_fraction: -0.1 is not from 0 to 1"}},
		{"copy floors without a size", "s.yaml", "copy_bytes: 0\nmin_device_copy_gbs: 5\n", []string{"copy_bytes: 0, but copy limits are set"}},
		{"negative copy floor", "s.yaml", "min_host_to_device_gbs: -5\n", []string{"min_host_to_device_gbs: -5 is negative"}},
		{"bad network collective", "s.yaml", "network_collectives:\n  - {collective: broadcast, size: 8}\n", []string{`network_collectives[0].collective: "broadcast" is not one of`}},
		{"negative put bytes", "s.yaml", "put_bytes: -1\n", []string{"put_bytes: -1 is not positive"}},
		{"bad size suffix", "s.yaml", "put_bytes: 12Q\n", []string{"line 1", "put_bytes", `invalid size "12Q"`}},
		{"fractional bytes", "s.yaml", "put_bytes: 1.5\n", []string{"put_bytes: want a size in bytes"}},
		{"size with bytes unit", "s.yaml", "put_bytes: 256MB\n", []string{`put_bytes: invalid size "256MB"`}},
		{"string for a number", "s.yaml", "max_port_signal_us: fast\n", []string{`max_port_signal_us: want a number, got "fast"`}},
		{"float for ranks", "s.yaml", "ranks: 2.5\n", []string{`ranks: want a whole number, got "2.5"`}},
		{"string for a bool", "s.json", `{"require_peer_access": "yes"}`, []string{`require_peer_access: want true or false, got "yes"`}},
		{"null value", "s.yaml", "ranks:\n", []string{"ranks: want a whole number, got no value"}},
		{"list for a scalar", "s.yaml", "model: [a, b]\n", []string{"model: want a string, got a list"}},
		{"collectives not a list", "s.yaml", "collectives: {collective: allreduce}\n", []string{"collectives: want a list, got a mapping"}},
		{"collective not a mapping", "s.yaml", "collectives:\n  - allreduce\n", []string{"line 2", "collectives[0]: want a mapping"}},
		{"bad collective name", "s.yaml", "collectives:\n  - {collective: broadcast, size: 8, max_time_us: 1}\n",
			[]string{`collectives[0].collective: "broadcast" is not one of allreduce, allgather, reducescatter, alltoall, sendrecv`}},
		{"zero collective size", "s.yaml", "collectives:\n  - {collective: allreduce, size: 0, max_time_us: 1}\n",
			[]string{"collectives[0].size: 0 is not positive"}},
		{"missing collective size", "s.yaml", "collectives:\n  - {collective: allreduce, max_time_us: 1}\n",
			[]string{"collectives[0].size: 0 is not positive"}},
		{"negative collective limit", "s.yaml", "collectives:\n  - {collective: allgather, size: 1K, min_bus_bw: -1}\n",
			[]string{"collectives[0].min_bus_bw: -1 is negative"}},
		{"not a mapping", "s.yaml", "- ranks: 2\n", []string{"s.yaml", "the file: want a mapping"}},
		{"empty", "s.yaml", "", []string{"s.yaml", "the file is empty"}},
		{"two documents", "s.yaml", "ranks: 2\n---\nranks: 3\n", []string{"more than one document"}},
		{"syntax error", "s.json", `{"ranks": 2`, []string{"s.json", "not valid JSON", "unexpected end"}},
		{"YAML syntax error", "s.yaml", "ranks: [2\n", []string{"s.yaml", "yaml:"}},
		{"trailing comma in JSON", "s.json", "{\n \"ranks\": 2,\n}\n", []string{"s.json", "line 3: not valid JSON"}},
		{"comment in JSON", "s.json", "{\"ranks\": 2} # two GPUs\n", []string{"s.json", "not valid JSON"}},
		{"YAML in a .json file", "s.json", "ranks: 2\n", []string{"s.json", "not valid JSON"}},
		{"JSON duplicate key", "s.json", `{"ranks": 2, "ranks": 4}`, []string{"s.json", "ranks: given twice"}},
		{"bad extension", "spec.toml", "ranks = 2\n", []string{"spec.toml", `extension ".toml" is neither .yaml, .yml nor .json`}},
		{"no extension", "spec", "ranks: 2\n", []string{`extension ""`}},
		{"missing file", "absent.yaml", "-", []string{"acceptance: read spec", "absent.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if tt.content != "-" {
				path = writeFile(t, tt.file, tt.content)
			}
			spec, err := LoadSpec(path, h200(t))
			if err == nil {
				t.Fatalf("LoadSpec = %+v, want an error", spec)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("LoadSpec error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadSpecUnknownKeyIsErrUnknownKey(t *testing.T) {
	_, err := LoadSpec(writeFile(t, "s.yaml", "collectives:\n  - {collective: allreduce, size: 8, busbw: 1}\n"), Spec{})
	if !errors.Is(err, errUnknownKey) {
		t.Errorf("LoadSpec error %v, want one wrapping errUnknownKey", err)
	}
}

func TestLoadSpecMissingFileIsNotExist(t *testing.T) {
	_, err := LoadSpec(filepath.Join(t.TempDir(), "absent.json"), Spec{})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadSpec error %v, want one wrapping os.ErrNotExist", err)
	}
}

// A spec marshalled with its own tags loads back unchanged, so the tags and LoadSpec's
// keys agree.
func TestLoadSpecRoundTrip(t *testing.T) {
	spec := h200(t)
	spec.Ranks = 8
	tests := []struct {
		file    string
		marshal func(any) ([]byte, error)
	}{
		{"spec.yaml", yaml.Marshal},
		{"spec.json", func(v any) ([]byte, error) { return json.MarshalIndent(v, "", "  ") }},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := tt.marshal(spec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := LoadSpec(writeFile(t, tt.file, string(data)), Spec{})
			if err != nil {
				t.Fatalf("LoadSpec of\n%s: %v", data, err)
			}
			if !reflect.DeepEqual(got, spec) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, spec)
			}
		})
	}
}

func TestLoadSpecExample(t *testing.T) {
	got, err := LoadSpec(filepath.Join("testdata", "h200-sxm.yaml"), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if want := h200(t); !reflect.DeepEqual(got, want) {
		t.Errorf("testdata/h200-sxm.yaml:\n got %+v\nwant %+v", got, want)
	}
}

// TestLoadSpecNotARegularFile: a FIFO or a directory given as the spec is refused at once
// (reading a FIFO would wait for a writer forever).
func TestLoadSpecNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo, sub := filepath.Join(dir, "spec.yaml"), filepath.Join(dir, "spec.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "named pipe", sub: "is a directory"} {
		var err error
		bounded.Run(t, 10*time.Second, "LoadSpec "+path, func() { _, err = LoadSpec(path, Spec{}) })
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("LoadSpec(%s) = %v, want an error naming it and %q", path, err, want)
		}
	}
}
