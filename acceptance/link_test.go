package acceptance

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeSys builds a /sys tree: files maps paths under it to contents, links maps a link's
// path to its target (an interface's "device").
func fakeSys(t *testing.T, files map[string]string, links map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, data := range files {
		path := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, target := range links {
		path := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestReadEthernetLink(t *testing.T) {
	root := fakeSys(t, map[string]string{
		"class/net/eth0/speed":   "100000\n",
		"class/net/eth1/speed":   "-1\n", // the driver knows no speed (link down, some virtio)
		"class/net/eth2/speed":   "fast\n",
		"class/net/eth3/mtu":     "1500\n", // no speed file
		"class/net/lo/speed":     "",       // loopback: no device behind it
		"class/net/veth0/speed":  "10000\n",
		"class/net/ens5/speed":   "25000\n",
		"devices/pci0000:00/x/y": "",
	}, map[string]string{
		"class/net/eth0/device": "../../../devices/pci0000:00/x",
		"class/net/eth1/device": "../../../devices/pci0000:00/x",
		"class/net/eth2/device": "../../../devices/pci0000:00/x",
		"class/net/eth3/device": "../../../devices/pci0000:00/x",
		"class/net/ens5/device": "../../../devices/pci0000:00/x",
	})
	for _, tt := range []struct {
		ifname  string
		gbs     float64
		rate    string
		unknown string // a part of Unknown; "" when the speed is known
	}{
		{"eth0", 12.5, "100000 Mb/s", ""},
		{"ens5", 3.125, "25000 Mb/s", ""},
		{"eth1", 0, "", `the driver reports speed "-1"`},
		{"eth2", 0, "", `the driver reports speed "fast"`},
		{"eth3", 0, "", "speed unreadable"},
		{"lo", 0, "", "virtual interface"},
		{"veth0", 0, "", "virtual interface"}, // veth reports 10000 Mb/s, which is no wire's speed
		{"eth9", 0, "", "not found"},
		{"", 0, "", "no interface found"},
	} {
		t.Run(tt.ifname, func(t *testing.T) {
			l := ReadEthernetLink(root, tt.ifname)
			if l.Transport != "ethernet" || l.Device != tt.ifname || l.GBs != tt.gbs || l.Rate != tt.rate {
				t.Errorf("link %+v, want %g GB/s, rate %q", l, tt.gbs, tt.rate)
			}
			if (tt.unknown == "") != (l.Unknown == "") || !strings.Contains(l.Unknown, tt.unknown) {
				t.Errorf("unknown %q, want %q", l.Unknown, tt.unknown)
			}
		})
	}
}

func TestReadIBLink(t *testing.T) {
	ib := "class/infiniband/"
	root := fakeSys(t, map[string]string{
		ib + "mlx5_0/ports/1/state": "1: DOWN\n",
		ib + "mlx5_0/ports/1/rate":  "10 Gb/sec (4X SDR)\n",
		ib + "mlx5_1/ports/1/state": "4: ACTIVE\n",
		ib + "mlx5_1/ports/1/rate":  "400 Gb/sec (4X NDR)\n",
		ib + "mlx5_1/ports/2/state": "4: ACTIVE\n",
		ib + "mlx5_1/ports/2/rate":  "200 Gb/sec (4X HDR)\n",
		ib + "mlx5_2/ports/1/state": "4: ACTIVE\n",
		ib + "mlx5_2/ports/1/rate":  "unknown\n",
	}, nil)
	empty := t.TempDir()
	for _, tt := range []struct {
		name, root, hca string
		device          string
		gbs             float64
		unknown         string
	}{
		{"first active port", root, "", "mlx5_1 port 1", 50, ""},
		{"named device", root, "mlx5_1", "mlx5_1 port 1", 50, ""},
		{"named port", root, "mlx5_1:2", "mlx5_1 port 2", 25, ""},
		{"device down", root, "mlx5_0", "", 0, "mlx5_0 port 1 not active"},
		{"rate not understood", root, "mlx5_2", "mlx5_2 port 1", 0, `rate "unknown" not understood`},
		{"no such device", root, "mlx4_0", "", 0, `no HCA named "mlx4_0"`},
		{"no HCA at all", empty, "", "", 0, "no HCA"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := ReadIBLink(tt.root, tt.hca)
			if l.Transport != "ib" || l.Device != tt.device || l.GBs != tt.gbs {
				t.Errorf("link %+v, want %s at %g GB/s", l, tt.device, tt.gbs)
			}
			if (tt.unknown == "") != (l.Unknown == "") || !strings.Contains(l.Unknown, tt.unknown) {
				t.Errorf("unknown %q, want %q", l.Unknown, tt.unknown)
			}
		})
	}
}

func TestParseIBRate(t *testing.T) {
	for in, want := range map[string]float64{
		"400 Gb/sec (4X NDR)": 50, "2.5 Gb/sec (1X SDR)": 0.3125, "100 Gb/sec": 12.5,
		"": 0, "400": 0, "x Gb/sec": 0, "-5 Gb/sec": 0, "100 Mb/sec": 0, "NaN Gb/sec": 0,
	} {
		if got := parseIBRate(in); got != want {
			t.Errorf("parseIBRate(%q) = %g, want %g", in, got, want)
		}
	}
}

// TestNetworkLimitsFromLinks: a limit the spec leaves at 0 comes from the pair's slower
// link (put bandwidth: network_link_fraction of its rate; signal latency: the transport's
// built-in ceiling), a slow pair fails naming the pair and the link, and where no link
// rate was read the checks are skipped with the reason, never passed.
func TestNetworkLimitsFromLinks(t *testing.T) {
	tests := []struct {
		name    string
		spec    func(*Spec)
		change  func(*Figures)
		failed  []string
		skipped []string
		pass    bool
		summary string
	}{
		{name: "links of 100 Gb/s: floors met", pass: true, summary: "acceptance: PASS (63 checks)"},
		{
			name:   "one slower link sets the pair's floor",
			change: func(f *Figures) { f.Links[3].GBs, f.Links[3].Device = 50, "ib0" }, // rank 3 faster: still eth0's floor
			pass:   true,
		},
		{
			name: "a link at a tenth of its speed",
			change: func(f *Figures) {
				pair(f, 1, 3).PortPutGBs = 1.2
			},
			failed:  []string{"network put bandwidth|1-3|1.2 GB/s < 3.12 GB/s, 25 % of rank 1's link eth0 100 Gb/s"},
			summary: "slowest/broken pairs: 1-3 (network put bandwidth: 1.2 GB/s < 3.12 GB/s, 25 % of rank 1's link eth0 100 Gb/s)",
		},
		{
			name:    "a slow signal",
			change:  func(f *Figures) { pair(f, 0, 2).PortSignalUs = 900 },
			failed:  []string{"network signal latency|0-2|900 us > 250 us, the built-in limit over ethernet"},
			summary: "slowest/broken pairs: 0-2",
		},
		{
			name:   "a collective below the links' floor",
			change: func(f *Figures) { collective(f, "alltoall", 64<<20).BusBw = 1.5 },
			failed: []string{"bus bandwidth|alltoall 64M across hosts|"},
		},
		{
			name: "loopback: no speed, skipped with the reason",
			change: func(f *Figures) {
				for i := range f.Links {
					f.Links[i] = Link{Rank: i, Transport: "ethernet", Device: "lo", Unknown: "virtual interface"}
				}
				pair(f, 1, 3).PortPutGBs = 0.001 // no floor to fail
			},
			skipped: []string{
				"network signal latency|0-2|no limit: rank 0's link lo: no speed (virtual interface); set max_network_signal_us",
				"network put bandwidth|0-2|no floor: rank 0's link lo: no speed (virtual interface); set min_network_put_gbs",
				"network signal latency|0-3|", "network put bandwidth|0-3|", "network signal latency|1-2|", "network put bandwidth|1-2|",
				"network signal latency|1-3|", "network put bandwidth|1-3|",
				"bus bandwidth|allreduce 64M across hosts|no floor: rank 0's link lo: no speed (virtual interface), rank 1's link lo: no speed (virtual interface), 2 more; set min_bus_bw",
				"bus bandwidth|allgather 64M across hosts|", "bus bandwidth|alltoall 64M across hosts|", "bus bandwidth|sendrecv 64M across hosts|",
			},
			pass:    true,
			summary: "acceptance: PASS (51 checks, 12 skipped)",
		},
		{
			name: "the spec's floor wins over the links",
			spec: func(s *Spec) { s.MinNetworkPutGBs = 11 },
			failed: []string{"network put bandwidth|0-2|", "network put bandwidth|0-3|", "network put bandwidth|1-2|",
				"network put bandwidth|1-3|"},
		},
		{
			name: "the spec's floor where no link is known",
			spec: func(s *Spec) { s.MinNetworkPutGBs, s.MaxNetworkSignalUs = 20, 1000 },
			change: func(f *Figures) {
				f.Links = nil
			},
			failed: []string{"network put bandwidth|0-2|", "network put bandwidth|0-3|", "network put bandwidth|1-2|",
				"network put bandwidth|1-3|"},
			skipped: []string{"bus bandwidth|allreduce 64M across hosts|no floor: no link was read; set min_bus_bw",
				"bus bandwidth|allgather 64M across hosts|", "bus bandwidth|alltoall 64M across hosts|", "bus bandwidth|sendrecv 64M across hosts|"},
			summary: "acceptance: FAIL: 4 of 59 checks failed, 4 skipped",
		},
		{
			name:   "network_link_fraction 0: no limits from links, said so",
			spec:   func(s *Spec) { s.NetworkLinkFraction = 0 },
			change: func(f *Figures) { pair(f, 1, 3).PortPutGBs = 0.5 },
			skipped: []string{"network signal latency|0-2|no limit: max_network_signal_us and network_link_fraction are 0",
				"network put bandwidth|0-2|no floor: min_network_put_gbs and network_link_fraction are 0",
				"network signal latency|0-3|", "network put bandwidth|0-3|", "network signal latency|1-2|", "network put bandwidth|1-2|",
				"network signal latency|1-3|", "network put bandwidth|1-3|"},
			pass: true,
		},
		{
			name: "no algorithm for the layout: skipped, not passed",
			change: func(f *Figures) {
				for _, size := range []int64{1 << 10, 64 << 20} {
					*collective(f, "alltoall", size) = CollectiveFigure{Collective: "alltoall", Size: size, AcrossHosts: true,
						Skip: "no alltoall algorithm runs on this layout"}
				}
			},
			skipped: []string{"algorithm|alltoall 1K across hosts|no alltoall algorithm runs on this layout",
				"algorithm|alltoall 64M across hosts|no alltoall algorithm runs on this layout"},
			pass:    true,
			summary: "acceptance: PASS (60 checks, 2 skipped)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := builtinSpec(ModelH200SXM)
			if tt.spec != nil {
				tt.spec(&spec)
			}
			f := acrossHosts()
			for i := range f.Pairs {
				if f.Pairs[i].AcrossHosts {
					f.Pairs[i].PortPutGBs = 10.25
				}
			}
			if tt.change != nil {
				tt.change(&f)
			}
			checks := Evaluate(spec, f)
			if got := failed(checks); !matchAll(got, tt.failed) {
				t.Errorf("failed checks:\n got %q\nwant %q", got, tt.failed)
			}
			if got := skips(checks); !matchAll(got, tt.skipped) {
				t.Errorf("skipped checks:\n got %q\nwant %q", got, tt.skipped)
			}
			if Passed(checks) != tt.pass {
				t.Errorf("Passed = %v, want %v", Passed(checks), tt.pass)
			}
			if s := Summary(checks); !strings.Contains(s, tt.summary) {
				t.Errorf("summary %q lacks %q", s, tt.summary)
			}
		})
	}
}

// matchAll reports whether got and want have the same length and each got[i] starts with
// want[i].
func matchAll(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			return false
		}
	}
	return true
}

// TestLinkFloorRanksPerHost: the collectives' floor from the links is divided by the most
// ranks on one host (they may share the link), and applies from LinkFloorBytes only.
func TestLinkFloorRanksPerHost(t *testing.T) {
	spec := builtinSpec(ModelH200SXM)
	f := acrossHosts()
	floor := linkBusBwFloor(spec, f)
	for _, tt := range []struct {
		size  int64
		want  float64
		apply bool
	}{
		{LinkFloorBytes - 1, 0, false},
		{LinkFloorBytes, 0.25 * 12.5 / 2, true},
		{1 << 30, 0.25 * 12.5 / 2, true},
	} {
		got, why, apply := floor(CollectiveLimit{Collective: AllReduce, Size: tt.size})
		if got != tt.want || apply != tt.apply || why != "" {
			t.Errorf("size %d: floor %g, %q, %v; want %g, %v", tt.size, got, why, apply, tt.want, tt.apply)
		}
	}
	f.Hosts[1].Ranks = []int{2, 3, 4, 5}
	if got, _, _ := linkBusBwFloor(spec, f)(CollectiveLimit{Collective: AllToAll, Size: 64 << 20}); got != 0.25*12.5/4 {
		t.Errorf("4 ranks on a host: floor %g, want %g", got, 0.25*12.5/4)
	}
	spec.NetworkLinkFraction = 0
	if _, _, apply := linkBusBwFloor(spec, f)(CollectiveLimit{Collective: AllReduce, Size: 64 << 20}); apply {
		t.Errorf("a floor with network_link_fraction 0")
	}
}

// TestSkippedChecksAlone: skipped checks neither pass nor fail a run, and a run of skipped
// checks only is not a pass.
func TestSkippedChecksAlone(t *testing.T) {
	skip := skipped(CheckNetworkPut, "0-1", "", "no floor")
	pass := Check{Name: CheckVerification, Pair: "0-1", Pass: true}
	fail := Check{Name: CheckNetworkPut, Pair: "0-1", Value: 1, Limit: 2, Cmp: AtLeast}
	for _, tt := range []struct {
		checks  []Check
		passed  bool
		summary string
	}{
		{[]Check{skip}, false, "acceptance: FAIL: nothing was checked, 1 skipped"},
		{[]Check{skip, pass}, true, "acceptance: PASS (1 check, 1 skipped)"},
		{[]Check{skip, pass, fail}, false, "acceptance: FAIL: 1 of 2 checks failed, 1 skipped; slowest/broken pairs: 0-1 (network put bandwidth 1 < 2)"},
	} {
		if got := Passed(tt.checks); got != tt.passed {
			t.Errorf("%d checks: Passed = %v, want %v", len(tt.checks), got, tt.passed)
		}
		if got := Summary(tt.checks); got != tt.summary {
			t.Errorf("Summary = %q, want %q", got, tt.summary)
		}
	}
	var b strings.Builder
	if err := WriteTable(&b, []Check{skip, pass}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| SKIP: no floor") {
		t.Errorf("table lacks the SKIP verdict:\n%s", b.String())
	}
}

// TestCopyChecks: a one-rank job's copies against their floors, skipped where the spec
// has none, and verified; an error fails one measurement check.
func TestCopyChecks(t *testing.T) {
	spec := builtinSpec(ModelH100SXM)
	good := CopyFigures{Bytes: 256 << 20, HostToDeviceGBs: 53.1, DeviceToHostGBs: 54.2, DeviceCopyGBs: 1450}
	for _, tt := range []struct {
		name    string
		spec    func(*Spec)
		copies  CopyFigures
		failed  []string
		skipped []string
	}{
		{name: "pass", copies: good},
		{name: "PCIe 4 speed", copies: func() CopyFigures { c := good; c.HostToDeviceGBs, c.DeviceToHostGBs = 24.9, 26; return c }(),
			failed: []string{"host-to-device copy|256M|", "device-to-host copy|256M|"}},
		{name: "slow memory", copies: func() CopyFigures { c := good; c.DeviceCopyGBs = 700; return c }(),
			failed: []string{"device copy|256M|"}},
		{name: "wrong bytes", copies: func() CopyFigures { c := good; c.Wrong = 16; return c }(),
			failed: []string{"data verification|copies 256M|16 bytes wrong"}},
		{name: "failed", copies: CopyFigures{Bytes: 256 << 20, Err: "cuMemcpyAsync: out of memory"},
			failed: []string{"measurement|copies 256M|cuMemcpyAsync: out of memory"}},
		{name: "no floors", spec: func(s *Spec) { s.MinHostToDeviceGBs, s.MinDeviceToHostGBs, s.MinDeviceCopyGBs = 0, 0, 0 }, copies: good,
			skipped: []string{"host-to-device copy|256M|no floor: min_host_to_device_gbs is 0 (measured 53.1 GB/s)",
				"device-to-host copy|256M|no floor: min_device_to_host_gbs is 0 (measured 54.2 GB/s)",
				"device copy|256M|no floor: min_device_copy_gbs is 0 (measured 1450 GB/s)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := spec
			if tt.spec != nil {
				tt.spec(&s)
			}
			f := recorded(1)
			f.Pairs, f.Collectives = nil, nil
			f.Node.GPUs[0].Name = "NVIDIA H100 80GB HBM3"
			c := tt.copies
			f.Copies = &c
			checks := Evaluate(s, f)
			if got := failed(checks); !matchAll(got, tt.failed) {
				t.Errorf("failed checks:\n got %q\nwant %q", got, tt.failed)
			}
			if got := skips(checks); !reflect.DeepEqual(got, tt.skipped) {
				t.Errorf("skipped checks:\n got %q\nwant %q", got, tt.skipped)
			}
			if Passed(checks) != (len(tt.failed) == 0) {
				t.Errorf("Passed = %v with failures %q", Passed(checks), tt.failed)
			}
		})
	}
}

func TestInterfaceOf(t *testing.T) {
	name, err := InterfaceOf(netip.MustParseAddr("127.0.0.1"))
	if err != nil || name == "" {
		t.Fatalf("InterfaceOf(127.0.0.1) = %q, %v", name, err)
	}
	if i, err := net.InterfaceByName(name); err != nil || i.Flags&net.FlagLoopback == 0 {
		t.Errorf("127.0.0.1 is on %q, not the loopback interface (%v)", name, err)
	}
	for _, ip := range []netip.Addr{{}, netip.IPv4Unspecified(), netip.MustParseAddr("192.0.2.77")} { // TEST-NET-1: on no interface
		if name, err := InterfaceOf(ip); err == nil {
			t.Errorf("InterfaceOf(%v) = %q, want an error", ip, name)
		}
	}
}

// TestAcrossHostsReportLinks: the header lines across hosts name each rank's link, with
// its rate or why it has none, and say why a collective was skipped instead of printing
// figures it does not have.
func TestAcrossHostsReportLinks(t *testing.T) {
	f := acrossHosts()
	f.Links[1] = Link{Rank: 1, Host: "a", Transport: "ethernet", Device: "eth0", Unknown: `the driver reports speed "-1"`}
	*collective(&f, "sendrecv", 8) = CollectiveFigure{Collective: "sendrecv", Size: 8, AcrossHosts: true, Skip: "no sendrecv algorithm runs on this layout (2 hosts (0,1 | 2,3), CUDA IPC inside each)"}
	var b strings.Builder
	if err := WriteAcrossHosts(&b, f, 256<<20); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# link of rank 0 on a: ethernet eth0 (100000 Mb/s)\n",
		`# link of rank 1 on a: ethernet eth0 (no speed: the driver reports speed "-1")` + "\n",
		"# sendrecv 8       -          skipped: no sendrecv algorithm runs on this layout (2 hosts (0,1 | 2,3), CUDA IPC inside each)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}
