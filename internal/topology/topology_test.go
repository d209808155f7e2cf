package topology

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

func TestSameBus(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"00000000:19:00.0", "0000:19:00.0", true},
		{"0000:19:00", "00000000:19:00.0", true},
		{"0000:1A:00.0", "0000:1a:00.0", true},
		{"0000:19:00.0", "0000:1a:00.0", false},
		{"0001:19:00.0", "0000:19:00.0", false},
	}
	for _, tt := range tests {
		if got := SameBus(tt.a, tt.b); got != tt.want {
			t.Errorf("SameBus(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// repeat returns n copies of v.
func repeat[T any](n int, v T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestNVLinks(t *testing.T) {
	tests := []struct {
		name string
		gpus []GPU
		want [][]int
	}{
		{
			name: "switch fabric, 18 links each",
			gpus: []GPU{{BusID: "0000:19:00.0", Links: repeat(18, Link{Switch: true})}, {BusID: "0000:3b:00.0", Links: repeat(18, Link{Switch: true})}},
			want: [][]int{{0, 18}, {18, 0}},
		},
		{
			name: "one GPU with a down link",
			gpus: []GPU{{BusID: "a:1:0.0", Links: repeat(18, Link{Switch: true})}, {BusID: "a:2:0.0", Links: repeat(17, Link{Switch: true})}},
			want: [][]int{{0, 17}, {17, 0}},
		},
		{
			name: "direct links, third GPU unlinked",
			gpus: []GPU{
				{BusID: "0000:01:00.0", Links: repeat(4, Link{BusID: "00000000:02:00.0"})},
				{BusID: "0000:02:00.0", Links: repeat(4, Link{BusID: "00000000:01:00.0"})},
				{BusID: "0000:03:00.0"},
			},
			want: [][]int{{0, 4, 0}, {4, 0, 0}, {0, 0, 0}},
		},
		{
			name: "no NVLink at all",
			gpus: []GPU{{BusID: "0000:01:00.0"}, {BusID: "0000:02:00.0"}},
			want: [][]int{{0, 0}, {0, 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NVLinks(tt.gpus); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("NVLinks = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDiscover runs on the machine's NVML. Without a driver (CI) the only acceptable
// outcome is the init error, never a panic, an exit or a failure at a later stage; the
// discovery logic itself is tested on recorded answers in TestDiscoverRecorded.
func TestDiscover(t *testing.T) {
	n, err := Discover()
	if err != nil {
		if !strings.HasPrefix(err.Error(), "NVML init: ") {
			t.Fatalf("Discover failed after NVML started: %v", err)
		}
		t.Skipf("no usable NVIDIA driver here: %v", err)
	}
	if n.Driver == "" || len(n.GPUs) == 0 {
		t.Fatalf("driver %q, %d GPUs", n.Driver, len(n.GPUs))
	}
	for i, g := range n.GPUs {
		if g.Index != i || g.BusID == "" || g.Name == "" || g.UUID == "" {
			t.Errorf("GPU %d: %+v", i, g)
		}
	}
	links := NVLinks(n.GPUs)
	for i := range links {
		for j := range links {
			if links[i][j] != links[j][i] {
				t.Errorf("NVLinks not symmetric: %v", links)
			}
		}
	}
}

// fakeNVML answers like NVML from recorded data.
type fakeNVML struct {
	initRet nvml.Return
	driver  string
	devs    []*fakeDevice
}

func (f *fakeNVML) Init() nvml.Return                             { return f.initRet }
func (f *fakeNVML) Shutdown() nvml.Return                         { return nvml.SUCCESS }
func (f *fakeNVML) SystemGetDriverVersion() (string, nvml.Return) { return f.driver, nvml.SUCCESS }
func (f *fakeNVML) DeviceGetCount() (int, nvml.Return)            { return len(f.devs), nvml.SUCCESS }
func (f *fakeNVML) ErrorString(ret nvml.Return) string            { return fmt.Sprintf("error %d", int(ret)) }
func (f *fakeNVML) DeviceGetHandleByIndex(i int) (nvmlDevice, nvml.Return) {
	if i < 0 || i >= len(f.devs) {
		return nil, nvml.ERROR_INVALID_ARGUMENT
	}
	return f.devs[i], nvml.SUCCESS
}

// fakeDevice is one GPU's recorded answers. links lists each NVLink slot: "switch", a peer
// bus id, or "down"; slots past the list are not supported.
type fakeDevice struct {
	bus, name, uuid string
	mem             uint64
	links           []string
	nameRet         nvml.Return
}

func pciInfo(bus string) nvml.PciInfo {
	var p nvml.PciInfo
	copy(p.BusId[:], bus) // NUL-terminated, as NVML fills it
	return p
}

func (d *fakeDevice) GetPciInfo() (nvml.PciInfo, nvml.Return) { return pciInfo(d.bus), nvml.SUCCESS }
func (d *fakeDevice) GetName() (string, nvml.Return)          { return d.name, d.nameRet }
func (d *fakeDevice) GetUUID() (string, nvml.Return)          { return d.uuid, nvml.SUCCESS }
func (d *fakeDevice) GetMemoryInfo() (nvml.Memory, nvml.Return) {
	return nvml.Memory{Total: d.mem}, nvml.SUCCESS
}
func (d *fakeDevice) GetNvLinkState(link int) (nvml.EnableState, nvml.Return) {
	if link >= len(d.links) {
		return 0, nvml.ERROR_NOT_SUPPORTED
	}
	if d.links[link] == "down" {
		return nvml.FEATURE_DISABLED, nvml.SUCCESS
	}
	return nvml.FEATURE_ENABLED, nvml.SUCCESS
}
func (d *fakeDevice) GetNvLinkRemoteDeviceType(link int) (nvml.IntNvLinkDeviceType, nvml.Return) {
	if d.links[link] == "switch" {
		return nvml.NVLINK_DEVICE_TYPE_SWITCH, nvml.SUCCESS
	}
	return nvml.NVLINK_DEVICE_TYPE_GPU, nvml.SUCCESS
}
func (d *fakeDevice) GetNvLinkRemotePciInfo(link int) (nvml.PciInfo, nvml.Return) {
	return pciInfo(d.links[link]), nvml.SUCCESS
}

// TestDiscoverRecorded runs the discovery logic on NVML answers shaped like those of the
// machines we run on: 2 H200 on NVSwitches (18 links each, one link down on the second),
// and 2 GPUs linked directly plus one with no NVLink.
func TestDiscoverRecorded(t *testing.T) {
	h200 := &fakeNVML{driver: "580.95.05", devs: []*fakeDevice{
		{bus: "00000000:00:06.0", name: "NVIDIA H200", uuid: "GPU-a", mem: 150 << 30, links: repeat(18, "switch")},
		{bus: "00000000:00:07.0", name: "NVIDIA H200", uuid: "GPU-b", mem: 150 << 30, links: append(repeat(17, "switch"), "down")},
	}}
	n, err := discover(h200)
	if err != nil {
		t.Fatal(err)
	}
	want := &Node{Driver: "580.95.05", GPUs: []GPU{
		{Index: 0, BusID: "00000000:00:06.0", Name: "NVIDIA H200", UUID: "GPU-a", MemoryBytes: 150 << 30, Links: repeat(18, Link{Switch: true})},
		{Index: 1, BusID: "00000000:00:07.0", Name: "NVIDIA H200", UUID: "GPU-b", MemoryBytes: 150 << 30, Links: repeat(17, Link{Switch: true})},
	}}
	if !reflect.DeepEqual(n, want) {
		t.Errorf("Discover = %+v\nwant       %+v", n, want)
	}
	if got := NVLinks(n.GPUs); !reflect.DeepEqual(got, [][]int{{0, 17}, {17, 0}}) {
		t.Errorf("NVLinks = %v", got)
	}

	direct := &fakeNVML{driver: "535", devs: []*fakeDevice{
		{bus: "00000000:01:00.0", name: "A", uuid: "a", links: repeat(4, "00000000:02:00.0")},
		{bus: "00000000:02:00.0", name: "B", uuid: "b", links: repeat(4, "00000000:01:00.0")},
		{bus: "00000000:03:00.0", name: "C", uuid: "c"},
	}}
	n, err = discover(direct)
	if err != nil {
		t.Fatal(err)
	}
	if got := NVLinks(n.GPUs); !reflect.DeepEqual(got, [][]int{{0, 4, 0}, {4, 0, 0}, {0, 0, 0}}) {
		t.Errorf("direct links: NVLinks = %v", got)
	}

	// Errors name the stage and the GPU.
	noDriver := &fakeNVML{initRet: nvml.ERROR_DRIVER_NOT_LOADED}
	if _, err := discover(noDriver); err == nil || err.Error() != fmt.Sprintf("NVML init: error %d", int(nvml.ERROR_DRIVER_NOT_LOADED)) {
		t.Errorf("no driver: %v", err)
	}
	broken := &fakeNVML{driver: "1", devs: []*fakeDevice{{bus: "00000000:09:00.0", nameRet: nvml.ERROR_GPU_IS_LOST}}}
	if _, err := discover(broken); err == nil || !strings.Contains(err.Error(), "NVML GPU 00000000:09:00.0 name") {
		t.Errorf("lost GPU: %v", err)
	}
}
