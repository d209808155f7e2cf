package acceptance

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// recorded returns figures as the 2×H200 run of 2026-11-22 measured them
// (CUDA graphs; docs/performance.md), copied to n ranks on n GPUs.
func recorded(n int) Figures {
	f := Figures{
		Node:  Node{Hostname: "vm", Driver: "580.95.05"},
		Ranks: n,
		Collectives: []CollectiveFigure{
			{Collective: "allreduce", Size: 8, Algorithm: "allpairs", TimeUs: 2.42},
			{Collective: "allreduce", Size: 1 << 20, Algorithm: "allpairs", TimeUs: 10.89, BusBw: 96.25},
			{Collective: "allreduce", Size: 256 << 20, Algorithm: "nvls", TimeUs: 787.68, BusBw: 340.79},
			{Collective: "allgather", Size: 1 << 10, Algorithm: "allpairs", TimeUs: 2.49, BusBw: 0.21},
			{Collective: "allgather", Size: 256 << 20, Algorithm: "allpairs", TimeUs: 385.42, BusBw: 348.24},
		},
	}
	for i := 0; i < n; i++ {
		f.Node.GPUs = append(f.Node.GPUs, GPU{
			Index: i, Rank: i, Name: "NVIDIA H200", BusID: fmt.Sprintf("0000:00:%02x.0", 6+i),
			UUID: fmt.Sprintf("GPU-%d", i), MemoryBytes: 150754820096,
		})
		var peer []bool
		var links []int
		for j := 0; j < n; j++ {
			peer = append(peer, i != j)
			links = append(links, 18)
		}
		f.Node.PeerAccess = append(f.Node.PeerAccess, peer)
		f.Node.NVLinks = append(f.Node.NVLinks, links)
		for j := i + 1; j < n; j++ {
			f.Pairs = append(f.Pairs, PairFigures{
				A: i, B: j, MemorySignalUs: 0.68, PortSignalUs: 7.5, MemoryPutGBs: 364.34, PortPutGBs: 391.49,
			})
		}
	}
	return f
}

// pair returns the figures of ranks a and b.
func pair(f *Figures, a, b int) *PairFigures {
	for i := range f.Pairs {
		if f.Pairs[i].A == a && f.Pairs[i].B == b {
			return &f.Pairs[i]
		}
	}
	panic(fmt.Sprintf("no pair %d-%d", a, b))
}

// failed lists the failed checks as "name|pair or subject|detail".
func failed(checks []Check) []string {
	var out []string
	for _, c := range checks {
		if !c.Pass && !c.Skip {
			where := c.Pair
			if where == "" {
				where = c.Subject
			}
			out = append(out, c.Name+"|"+where+"|"+c.Detail)
		}
	}
	return out
}

// skips lists the skipped checks as "name|pair or subject|detail".
func skips(checks []Check) []string {
	var out []string
	for _, c := range checks {
		if c.Skip {
			where := c.Pair
			if where == "" {
				where = c.Subject
			}
			out = append(out, c.Name+"|"+where+"|"+c.Detail)
		}
	}
	return out
}

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name    string
		ranks   int
		spec    func(*Spec)
		figures func(*Figures)
		checks  int      // number of checks; 0: not compared
		failed  []string // as failed() writes them
		summary string   // a part of Summary's line
	}{
		{
			name: "2xH200 as recorded", ranks: 2,
			// ranks, 2 GPU models, peer access, NVLinks, 4 pair figures and verification,
			// collectives: 5 verifications and 5 limits.
			checks:  1 + 2 + 1 + 1 + 5 + 10,
			summary: "acceptance: PASS (20 checks)",
		},
		{
			name: "8 GPUs as recorded", ranks: 8,
			checks:  1 + 8 + 28 + 28 + 28*5 + 10,
			summary: "acceptance: PASS (215 checks)",
		},
		{
			name: "slow port put on one pair", ranks: 4,
			figures: func(f *Figures) { pair(f, 1, 3).PortPutGBs = 120 },
			failed:  []string{"port put bandwidth|1-3|"},
			summary: "acceptance: FAIL: 1 of 57 checks failed; slowest/broken pairs: 1-3 (port put bandwidth 120 GB/s < 320)",
		},
		{
			name: "wrong data on a fast pair", ranks: 2,
			figures: func(f *Figures) { pair(f, 0, 1).Wrong = 12 },
			failed:  []string{"data verification|0-1|12 bytes wrong"},
			summary: "slowest/broken pairs: 0-1 (data verification: 12 bytes wrong)",
		},
		{
			name: "pair measurement error", ranks: 2,
			figures: func(f *Figures) {
				*pair(f, 0, 1) = PairFigures{A: 0, B: 1, Err: "port channel: connect: timeout"}
			},
			checks:  1 + 2 + 1 + 1 + 1 + 10,
			failed:  []string{"measurement|0-1|port channel: connect: timeout"},
			summary: "0-1 (measurement: port channel: connect: timeout)",
		},
		{
			name: "a GPU no rank uses", ranks: 2,
			spec: func(s *Spec) { s.Ranks = 0 }, // the built-in specs expect every GPU
			figures: func(f *Figures) {
				f.Node.GPUs = append(f.Node.GPUs, GPU{Index: 2, Rank: -1, Name: "NVIDIA H200", BusID: "0000:00:08.0"})
			},
			failed:  []string{"GPUs tested|vm|no rank uses GPU 2: launch one rank per GPU (mpirun -np 3), or set ranks in the spec"},
			summary: "other failures: vm (GPUs tested",
		},
		{
			name: "a GPU no rank uses, with ranks set in the spec", ranks: 2,
			spec: func(s *Spec) { s.Ranks = 2 },
			figures: func(f *Figures) {
				f.Node.GPUs = append(f.Node.GPUs, GPU{Index: 2, Rank: -1, Name: "NVIDIA H200", BusID: "0000:00:08.0"})
			},
			summary: "acceptance: PASS",
		},
		{
			name: "pair not measured", ranks: 3,
			figures: func(f *Figures) { f.Pairs = f.Pairs[:2] }, // 0-1, 0-2
			failed:  []string{"measurement|1-2|not measured"},
		},
		{
			name: "pairs need no figures when no pair limit is set", ranks: 3,
			spec: func(s *Spec) {
				s.MaxMemorySignalUs, s.MaxPortSignalUs, s.MinMemoryPutGBs, s.MinPortPutGBs = 0, 0, 0, 0
			},
			figures: func(f *Figures) { f.Pairs = nil },
			summary: "acceptance: PASS",
		},
		{
			name: "zero latency is no measurement", ranks: 2,
			figures: func(f *Figures) { pair(f, 0, 1).MemorySignalUs = 0 },
			failed:  []string{"memory signal latency|0-1|the figure is not positive, so it was not measured"},
		},
		{
			name: "NaN and infinite figures", ranks: 2,
			figures: func(f *Figures) {
				pair(f, 0, 1).PortSignalUs = nan()
				pair(f, 0, 1).MemoryPutGBs = 1 / zero()
			},
			failed: []string{
				"port signal latency|0-1|the figure is not a finite number",
				"memory put bandwidth|0-1|the figure is not a finite number",
			},
		},
		{
			name: "slow signal", ranks: 2,
			figures: func(f *Figures) { pair(f, 0, 1).MemorySignalUs = 2.5 },
			failed:  []string{"memory signal latency|0-1|"},
			summary: "0-1 (memory signal latency 2.5 us > 2)",
		},
		{
			name: "missing collective", ranks: 2,
			figures: func(f *Figures) { f.Collectives = append(f.Collectives[:1], f.Collectives[2:]...) },
			failed:  []string{"measurement|allreduce 1M|not measured"},
			summary: "acceptance: FAIL: 1 of 19 checks failed; other failures: allreduce 1M (measurement: not measured)",
		},
		{
			name: "collective wrong data", ranks: 2,
			figures: func(f *Figures) { f.Collectives[2].Wrong = 4096 },
			failed:  []string{"data verification|allreduce 256M|4096 bytes wrong (algorithm nvls)"},
		},
		{
			name: "collective error", ranks: 2,
			figures: func(f *Figures) {
				f.Collectives[4] = CollectiveFigure{Collective: "allgather", Size: 256 << 20, Err: "out of memory"}
			},
			failed: []string{"measurement|allgather 256M|out of memory"},
		},
		{
			name: "slow collective", ranks: 2,
			figures: func(f *Figures) { f.Collectives[2].BusBw = 200 },
			failed:  []string{"bus bandwidth|allreduce 256M|"},
			summary: "other failures: allreduce 256M (bus bandwidth 200 GB/s < 280)",
		},
		{
			name: "slow small collective", ranks: 2,
			figures: func(f *Figures) { f.Collectives[3].TimeUs = 11.87 },
			failed:  []string{"time|allgather 1K|"},
		},
		{
			name: "best algorithm counts", ranks: 2,
			figures: func(f *Figures) {
				f.Collectives = append(f.Collectives,
					CollectiveFigure{Collective: "allreduce", Size: 8, Algorithm: "slow", TimeUs: 50},
					CollectiveFigure{Collective: "allreduce", Size: 256 << 20, Algorithm: "ring", TimeUs: 2000, BusBw: 100})
			},
			summary: "acceptance: PASS",
		},
		{
			name: "unusable figures of one algorithm do not hide a good one", ranks: 2,
			figures: func(f *Figures) {
				f.Collectives = append([]CollectiveFigure{
					{Collective: "allreduce", Size: 8, Algorithm: "zero", TimeUs: 0},
					{Collective: "allreduce", Size: 256 << 20, Algorithm: "nan", TimeUs: nan(), BusBw: nan()},
					{Collective: "allgather", Size: 256 << 20, Algorithm: "inf", TimeUs: 1 / zero(), BusBw: 1 / zero()},
				}, f.Collectives...)
			},
			summary: "acceptance: PASS",
		},
		{
			name: "only unusable figures", ranks: 2,
			figures: func(f *Figures) {
				f.Collectives[0].TimeUs = 0
				f.Collectives[2].BusBw = 1 / zero()
			},
			failed: []string{
				"time|allreduce 8|the figure is not positive, so it was not measured",
				"bus bandwidth|allreduce 256M|the figure is not a finite number",
			},
		},
		{
			name: "unchecked figures still fail on errors", ranks: 2,
			figures: func(f *Figures) {
				f.Collectives = append(f.Collectives,
					CollectiveFigure{Collective: "allreduce", Size: 4096, Wrong: 8},
					CollectiveFigure{Collective: "allgather", Size: 4096, Err: "launch failed"})
			},
			failed: []string{"data verification|allreduce 4K|8 bytes wrong", "measurement|allgather 4K|launch failed"},
		},
		{
			name: "peer access missing", ranks: 2,
			figures: func(f *Figures) { f.Node.PeerAccess[1][0] = false },
			failed:  []string{"peer access|GPU 0-1|peer access 1->0 missing"},
			summary: "other failures: GPU 0-1 (peer access 1->0 missing)",
		},
		{
			name: "peer access unknown", ranks: 2,
			figures: func(f *Figures) { f.Node.PeerAccess = nil },
			failed:  []string{"peer access|vm|peer access was not probed"},
		},
		{
			name: "peer access not required", ranks: 2,
			spec:    func(s *Spec) { s.RequirePeerAccess = false },
			figures: func(f *Figures) { f.Node.PeerAccess = [][]bool{{false, false}, {false, false}} },
			summary: "acceptance: PASS (19 checks)",
		},
		{
			name: "GPU without a rank is left out of pair checks", ranks: 2,
			figures: func(f *Figures) {
				f.Node.GPUs = append(f.Node.GPUs, GPU{Index: 2, Rank: -1, Name: "NVIDIA H200"})
				f.Node.NVLinks[0] = append(f.Node.NVLinks[0], 0)
				f.Node.NVLinks[1] = append(f.Node.NVLinks[1], 0)
				f.Node.NVLinks = append(f.Node.NVLinks, []int{0, 0, 0})
			},
			checks:  21, // one more GPU model
			summary: "acceptance: PASS",
		},
		{
			name: "matrices are indexed by position, checks named by CUDA index", ranks: 2,
			figures: func(f *Figures) {
				f.Node.GPUs[0].Index, f.Node.GPUs[1].Index = 5, 3 // rank 0 on GPU 5, rank 1 on GPU 3
				f.Node.PeerAccess[0][1] = false
			},
			failed: []string{"peer access|GPU 5-3|peer access 5->3 missing"},
		},
		{
			name: "ranks sharing a GPU are one GPU for peer access", ranks: 2,
			figures: func(f *Figures) {
				f.Node.GPUs = append(f.Node.GPUs, f.Node.GPUs[0])
				f.Node.GPUs[2].Rank = 2
				f.Node.PeerAccess = [][]bool{{false, true, false}, {true, false, true}, {false, true, false}}
				f.Node.NVLinks = [][]int{{0, 18, 0}, {18, 0, 18}, {0, 18, 0}}
			},
			checks:  21, // one more GPU model
			summary: "acceptance: PASS",
		},
		{
			name: "short matrices", ranks: 2,
			figures: func(f *Figures) {
				f.Node.PeerAccess = [][]bool{{false, true}}
				f.Node.NVLinks = [][]int{{0}}
			},
			failed: []string{
				"peer access|GPU 0-1|peer access 1->0 unknown",
				"NVLinks|GPU 0-1|no NVLink count for GPU 0-1",
			},
		},
		{
			name: "NVLinks unknown", ranks: 2,
			figures: func(f *Figures) {
				f.Node.NVLinks, f.Node.NVMLError = nil, "NVML: libnvidia-ml.so.1 not found"
			},
			failed:  []string{"NVLinks|vm|NVML: libnvidia-ml.so.1 not found"},
			summary: "other failures: vm (NVLinks: NVML: libnvidia-ml.so.1 not found)",
		},
		{
			name: "NVLinks unknown but not checked", ranks: 2,
			spec:    func(s *Spec) { s.MinNVLinks = 0 },
			figures: func(f *Figures) { f.Node.NVLinks = nil },
			summary: "acceptance: PASS (19 checks)",
		},
		{
			name: "too few NVLinks", ranks: 4,
			figures: func(f *Figures) { f.Node.NVLinks[2][3], f.Node.NVLinks[3][2] = 12, 12 },
			failed:  []string{"NVLinks|GPU 2-3|"},
			summary: "GPU 2-3 (NVLinks 12 links < 18)",
		},
		{
			name: "model mismatch", ranks: 2,
			figures: func(f *Figures) { f.Node.GPUs[1].Name = "NVIDIA H100 80GB HBM3" },
			failed:  []string{"GPU model|GPU 1|NVIDIA H100 80GB HBM3 is not H200 SXM"},
			summary: "other failures: GPU 1 (GPU model: NVIDIA H100 80GB HBM3 is not H200 SXM)",
		},
		{
			name: "mixed node without a model in the spec", ranks: 2,
			spec:    func(s *Spec) { s.Model = "" },
			figures: func(f *Figures) { f.Node.GPUs[1].Name = "NVIDIA H200 NVL" },
			failed:  []string{"GPU model|GPU 1|NVIDIA H200 NVL is not NVIDIA H200"},
		},
		{
			name: "no GPUs", ranks: 2,
			figures: func(f *Figures) { f.Node.GPUs = nil },
			failed:  []string{"GPU model|vm|no GPUs found"},
		},
		{
			name: "rank count", ranks: 2,
			spec:    func(s *Spec) { s.Ranks = 8 },
			failed:  []string{"ranks|vm|"},
			summary: "other failures: vm (ranks 2 != 8)",
		},
		{
			name: "several failures", ranks: 4,
			figures: func(f *Figures) {
				pair(f, 0, 1).PortPutGBs = 300   // 1.07 times too slow
				pair(f, 0, 2).MemoryPutGBs = 150 // 2 times too slow
				pair(f, 0, 2).PortPutGBs = 160
				pair(f, 2, 3).Wrong = 1 // broken
				f.Collectives[0].TimeUs = 20
			},
			summary: "acceptance: FAIL: 5 of 57 checks failed; slowest/broken pairs: " +
				"2-3 (data verification: 1 byte wrong), " +
				"0-2 (memory put bandwidth 150 GB/s < 300, port put bandwidth 160 GB/s < 320), " +
				"0-1 (port put bandwidth 300 GB/s < 320); other failures: allreduce 8 (time 20 us > 10)",
		},
		{
			name: "many broken pairs", ranks: 4,
			figures: func(f *Figures) {
				for i := range f.Pairs {
					f.Pairs[i].Wrong = int64(i + 1)
				}
			},
			summary: "0-1 (data verification: 1 byte wrong), 0-2 (data verification: 2 bytes wrong), " +
				"0-3 (data verification: 3 bytes wrong), 1-2 (data verification: 4 bytes wrong), " +
				"1-3 (data verification: 5 bytes wrong), and 1 more",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := DefaultSpec("NVIDIA H200")
			if err != nil {
				t.Fatal(err)
			}
			spec.Ranks = tt.ranks
			if tt.spec != nil {
				tt.spec(&spec)
			}
			f := recorded(tt.ranks)
			if tt.figures != nil {
				tt.figures(&f)
			}
			checks := Evaluate(spec, f)
			if tt.checks != 0 && len(checks) != tt.checks {
				t.Errorf("%d checks, want %d:\n%s", len(checks), tt.checks, table(t, checks))
			}
			if got := failed(checks); tt.failed != nil && !reflect.DeepEqual(got, tt.failed) {
				t.Errorf("failed checks:\n got %q\nwant %q", got, tt.failed)
			}
			if pass := Passed(checks); tt.failed != nil && pass {
				t.Errorf("Passed = true with failed checks")
			}
			if got := Summary(checks); !strings.Contains(got, tt.summary) {
				t.Errorf("Summary:\n got %q\nwant it to contain %q", got, tt.summary)
			}
			if strings.HasPrefix(tt.summary, "acceptance: PASS") != Passed(checks) {
				t.Errorf("Passed = %v; summary %q", Passed(checks), Summary(checks))
			}
		})
	}
}

func TestEvaluateSkipsZeroLimits(t *testing.T) {
	spec := Spec{PutBytes: DefaultPutBytes}
	checks := Evaluate(spec, recorded(2))
	// Left: GPU models against GPU 0, and data verification of the pair.
	want := []string{"GPU model|GPU 0", "GPU model|GPU 1", "data verification|0-1"}
	var got []string
	for _, c := range checks {
		got = append(got, c.Name+"|"+c.Pair+c.Subject)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("checks %q, want %q", got, want)
	}
}

func TestPassed(t *testing.T) {
	tests := []struct {
		name   string
		checks []Check
		want   bool
	}{
		{"none", nil, false},
		{"all pass", []Check{{Pass: true}, {Pass: true}}, true},
		{"one fails", []Check{{Pass: true}, {}}, false},
	}
	for _, tt := range tests {
		if got := Passed(tt.checks); got != tt.want {
			t.Errorf("%s: Passed = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := Summary(nil); got != "acceptance: FAIL: nothing was checked" {
		t.Errorf("Summary(nil) = %q", got)
	}
	if got := Summary([]Check{{Pass: true}}); got != "acceptance: PASS (1 check)" {
		t.Errorf("Summary of one check = %q", got)
	}
}

// table renders checks for failure messages.
func table(t *testing.T, checks []Check) string {
	t.Helper()
	var b strings.Builder
	if err := WriteTable(&b, checks); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestPairNotMeasuredForEachLimit: any one pair limit, alone, makes every pair a check, so
// that a pair with no figures fails as not measured; the network limits do so only when
// the job spans hosts. With no pair limit, an unmeasured pair is no failure.
func TestPairNotMeasuredForEachLimit(t *testing.T) {
	two := []Node{{Hostname: "a"}, {Hostname: "b"}}
	tests := []struct {
		name  string
		set   func(*Spec)
		hosts []Node
		want  bool // "1-2 not measured" among the checks
	}{
		{"max memory signal", func(s *Spec) { s.MaxMemorySignalUs = 5 }, nil, true},
		{"max port signal", func(s *Spec) { s.MaxPortSignalUs = 5 }, nil, true},
		{"min memory put", func(s *Spec) { s.MinMemoryPutGBs = 100 }, nil, true},
		{"min port put", func(s *Spec) { s.MinPortPutGBs = 100 }, nil, true},
		{"max network signal across hosts", func(s *Spec) { s.MaxNetworkSignalUs = 50 }, two, true},
		{"min network put across hosts", func(s *Spec) { s.MinNetworkPutGBs = 10 }, two, true},
		{"max network signal on one host", func(s *Spec) { s.MaxNetworkSignalUs = 50 }, nil, false},
		{"min network put on one host", func(s *Spec) { s.MinNetworkPutGBs = 10 }, nil, false},
		{"no pair limit", func(*Spec) {}, nil, false},
		{"no pair limit across hosts", func(*Spec) {}, two, false},
	}
	for _, tt := range tests {
		var spec Spec
		tt.set(&spec)
		f := Figures{Ranks: 3, Hosts: tt.hosts, Pairs: []PairFigures{
			{A: 0, B: 1, MemorySignalUs: 1, PortSignalUs: 1, MemoryPutGBs: 200, PortPutGBs: 200},
			{A: 0, B: 2, MemorySignalUs: 1, PortSignalUs: 1, MemoryPutGBs: 200, PortPutGBs: 200},
		}}
		found := false
		for _, c := range Evaluate(spec, f) {
			if c.Name == CheckMeasurement && c.Pair == "1-2" {
				found = true
				if c.Pass || c.Detail != "not measured" {
					t.Errorf("%s: check %+v; want a failure saying not measured", tt.name, c)
				}
			}
			if c.Name == CheckMeasurement && (c.Pair == "0-1" || c.Pair == "0-2") {
				t.Errorf("%s: measured pair %s reported as %+v", tt.name, c.Pair, c)
			}
		}
		if found != tt.want {
			t.Errorf("%s: pair 1-2 not measured reported %v; want %v", tt.name, found, tt.want)
		}
	}
}

// TestCoverageAcrossHosts: a GPU no rank of its host uses counts as tested when a rank of
// another host uses the same GPU (its UUID): simulated hosts on one machine each list all
// of the machine's GPUs. On real hosts (distinct UUIDs, or none known) it stays idle.
func TestCoverageAcrossHosts(t *testing.T) {
	gpu := func(i, rank int, uuid string) GPU {
		return GPU{Index: i, Rank: rank, Name: "NVIDIA H100 80GB HBM3", BusID: fmt.Sprintf("0000:00:0%d.0", i+6), UUID: uuid}
	}
	machine := func(h string, ranks [4]int) Node {
		n := Node{Hostname: h}
		for i, r := range ranks {
			n.GPUs = append(n.GPUs, gpu(i, r, fmt.Sprintf("GPU-%d", i)))
		}
		return n
	}
	apart := func(h string, ranks [4]int, uuids bool) Node {
		n := Node{Hostname: h}
		for i, r := range ranks {
			u := ""
			if uuids {
				u = fmt.Sprintf("GPU-%s-%d", h, i)
			}
			n.GPUs = append(n.GPUs, gpu(i, r, u))
		}
		return n
	}
	tests := []struct {
		name  string
		hosts []Node
		want  map[string]string // host -> its "GPUs tested" failure, up to the colon (none: absent)
	}{
		{"simulated hosts share the GPUs", []Node{machine("h0", [4]int{0, 1, -1, -1}), machine("h1", [4]int{-1, -1, 2, 3})},
			map[string]string{}},
		{"simulated hosts, GPU 3 unused", []Node{machine("h0", [4]int{0, 1, -1, -1}), machine("h1", [4]int{-1, -1, 2, -1})},
			map[string]string{"h0": "no rank uses GPU 3", "h1": "no rank uses GPU 3"}},
		{"real hosts, two GPUs each used", []Node{apart("a", [4]int{0, 1, -1, -1}, true), apart("b", [4]int{-1, -1, 2, 3}, true)},
			map[string]string{"a": "no rank uses GPU 2, 3", "b": "no rank uses GPU 0, 1"}},
		{"real hosts, no UUIDs", []Node{apart("a", [4]int{0, 1, 2, 3}, false), apart("b", [4]int{-1, -1, 4, 5}, false)},
			map[string]string{"b": "no rank uses GPU 0, 1"}},
	}
	for _, tt := range tests {
		f := Figures{Ranks: 4, Hosts: tt.hosts}
		got := map[string]string{}
		for _, c := range Evaluate(Spec{}, f) {
			if c.Name == CheckCoverage && !c.Pass {
				got[c.Subject], _, _ = strings.Cut(c.Detail, ":")
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: GPUs tested failures %v; want %v", tt.name, got, tt.want)
		}
	}
}
