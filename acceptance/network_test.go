package acceptance

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of acceptance across hosts")

// acrossHosts returns figures of 2 hosts ("a": ranks 0,1; "b": ranks 2,3), each host as
// recorded(2) measured it, the pairs across hosts over Ethernet, every rank's link a
// 100 Gb/s NIC (eth0), and the collectives across hosts with the hierarchical algorithms.
func acrossHosts() Figures {
	one := recorded(2)
	f := Figures{Ranks: 4}
	for h, name := range []string{"a", "b"} {
		n := one.Node
		n.Hostname, n.Ranks = name, []int{2 * h, 2*h + 1}
		n.GPUs = append([]GPU(nil), one.Node.GPUs...)
		n.NVLinks = nil
		for _, row := range one.Node.NVLinks {
			n.NVLinks = append(n.NVLinks, append([]int(nil), row...))
		}
		for i := range n.GPUs {
			n.GPUs[i].Rank = 2*h + i
		}
		f.Hosts = append(f.Hosts, n)
		p := one.Pairs[0]
		p.A, p.B, p.Transport = 2*h, 2*h+1, "cudaipc"
		f.Pairs = append(f.Pairs, p)
		for _, c := range one.Collectives {
			c.Host = name
			f.Collectives = append(f.Collectives, c)
		}
	}
	f.Node = f.Hosts[0]
	for _, ab := range [][2]int{{0, 2}, {0, 3}, {1, 2}, {1, 3}} {
		f.Pairs = append(f.Pairs, PairFigures{A: ab[0], B: ab[1], PortSignalUs: 103.5, PortPutGBs: 10.25, Transport: "ethernet", AcrossHosts: true})
	}
	for _, l := range builtinSpec(ModelH200SXM).NetworkCollectives {
		f.Collectives = append(f.Collectives, CollectiveFigure{Collective: l.Collective, Size: l.Size, Algorithm: "hier", TimeUs: 950.25, BusBw: 2.5, AcrossHosts: true})
	}
	for r := 0; r < 4; r++ {
		f.Links = append(f.Links, Link{Rank: r, Host: []string{"a", "b"}[r/2], Transport: "ethernet", Device: "eth0", GBs: 12.5, Rate: "100000 Mb/s"})
	}
	return f
}

// collective returns the figure of the collective across hosts at size.
func collective(f *Figures, name string, size int64) *CollectiveFigure {
	for i := range f.Collectives {
		if c := &f.Collectives[i]; c.AcrossHosts && c.Collective == name && c.Size == size {
			return c
		}
	}
	panic(fmt.Sprintf("no %s %d across hosts", name, size))
}

func TestEvaluateAcrossHosts(t *testing.T) {
	tests := []struct {
		name   string
		spec   func(*Spec)
		change func(*Figures)
		failed []string // "name|pair or subject|detail" of every failed check
	}{
		{name: "pass"},
		{
			name: "network limits",
			spec: func(s *Spec) { s.MaxNetworkSignalUs, s.MinNetworkPutGBs = 50, 8 },
			change: func(f *Figures) {
				pair(f, 1, 3).PortPutGBs = 4
			},
			failed: []string{"network signal latency|0-2|", "network signal latency|0-3|", "network signal latency|1-2|",
				"network signal latency|1-3|", "network put bandwidth|1-3|"},
		},
		{
			name: "a slow host",
			change: func(f *Figures) {
				f.Hosts[1].NVLinks[0][1], f.Hosts[1].NVLinks[1][0] = 4, 4
				f.Collectives[7].BusBw = 100 // host b's allreduce 256M
			},
			failed: []string{"NVLinks|b GPU 0-1|", "bus bandwidth|allreduce 256M on b|"},
		},
		{
			name: "broken across hosts",
			change: func(f *Figures) {
				pair(f, 0, 3).Wrong = 64
				collective(f, "allreduce", 64<<20).Wrong = 4
				f.Collectives = slices.DeleteFunc(f.Collectives, func(c CollectiveFigure) bool { return c.AcrossHosts && c.Collective == "allgather" })
				f.Pairs = f.Pairs[:len(f.Pairs)-1] // 1-3 missing
			},
			spec: func(s *Spec) { s.MinNetworkPutGBs = 1 },
			failed: []string{"data verification|0-3|64 bytes wrong", "measurement|1-3|not measured",
				"data verification|allreduce 64M across hosts|4 bytes wrong (algorithm hier)",
				"measurement|allgather 1K across hosts|not measured", "measurement|allgather 64M across hosts|not measured"},
		},
		{
			name: "a pair across hosts failed",
			change: func(f *Figures) {
				*pair(f, 1, 2) = PairFigures{A: 1, B: 2, Transport: "ethernet", AcrossHosts: true, Err: "timed out"}
			},
			failed: []string{"measurement|1-2|timed out"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := builtinSpec(ModelH200SXM)
			if tt.spec != nil {
				tt.spec(&spec)
			}
			f := acrossHosts()
			if tt.change != nil {
				tt.change(&f)
			}
			checks := Evaluate(spec, f)
			got := failed(checks)
			if !reflect.DeepEqual(got, tt.failed) && !(len(got) == 0 && len(tt.failed) == 0) {
				t.Errorf("failed checks:\n got %q\nwant %q", got, tt.failed)
			}
			if Passed(checks) != (len(tt.failed) == 0) {
				t.Errorf("Passed = %v with %d failures", Passed(checks), len(got))
			}
			for _, c := range checks {
				if c.Pair != "" && c.Name == CheckPortPut && (c.Pair == "0-2" || c.Pair == "1-3") {
					t.Errorf("a pair across hosts was held to the NVLink port limit: %+v", c)
				}
			}
		})
	}
}

// TestEvaluateHostsOfOneRank: two hosts of one rank each have node checks but no pair or
// collective of their own; the pair between them and the collectives across hosts are
// checked.
func TestEvaluateHostsOfOneRank(t *testing.T) {
	f := acrossHosts()
	for h := range f.Hosts {
		f.Hosts[h].Ranks = []int{h}
		f.Hosts[h].GPUs = f.Hosts[h].GPUs[:1]
		f.Hosts[h].GPUs[0].Rank = h
	}
	f.Node, f.Ranks = f.Hosts[0], 2
	f.Pairs = []PairFigures{{A: 0, B: 1, PortSignalUs: 90, PortPutGBs: 11, Transport: "ethernet", AcrossHosts: true}}
	var across []CollectiveFigure
	for _, c := range f.Collectives {
		if c.AcrossHosts {
			c.BusBw = 5 // the links' floor: a quarter of 12.5 GB/s, one rank per host
			across = append(across, c)
		}
	}
	f.Collectives = across
	spec := builtinSpec(ModelH200SXM)
	spec.MinNetworkPutGBs = 10
	checks := Evaluate(spec, f)
	if got := failed(checks); len(got) != 0 {
		t.Errorf("failed checks: %q", got)
	}
	var names []string
	for _, c := range checks {
		if c.Pair != "" {
			names = append(names, c.Name+"|"+c.Pair)
		}
	}
	if want := []string{"network signal latency|0-1", "network put bandwidth|0-1", "data verification|0-1"}; !reflect.DeepEqual(names, want) {
		t.Errorf("pair checks %q, want %q", names, want)
	}
	f.Pairs[0].PortPutGBs = 9
	if got := failed(Evaluate(spec, f)); !reflect.DeepEqual(got, []string{"network put bandwidth|0-1|"}) {
		t.Errorf("a slow pair: failed %q", got)
	}
}

// TestEvaluateAcrossHostsChecksEveryHost: every host gets its node checks and its own
// collective checks, named by host; the collectives across hosts get theirs.
func TestEvaluateAcrossHostsChecksEveryHost(t *testing.T) {
	checks := Evaluate(builtinSpec(ModelH200SXM), acrossHosts())
	count := map[string]int{}
	for _, c := range checks {
		where := c.Subject
		if c.Pair != "" {
			where = "pair"
		}
		for _, key := range []string{"a GPU", "b GPU", " on a", " on b", " across hosts", "pair"} {
			if strings.Contains(where, key) {
				count[key]++
			}
		}
	}
	// per host: 2 models, peer access, NVLinks; 5 collectives x (verification + a limit)
	// on each host; across hosts 9 verifications and the links' floors of the 4 at 64M;
	// pairs: 2 inside hosts x (4 limits + verification) + 4 across x (2 limits from the
	// links + verification).
	want := map[string]int{"a GPU": 4, "b GPU": 4, " on a": 10, " on b": 10, " across hosts": 13, "pair": 22}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("checks by subject = %v, want %v", count, want)
	}
}

// TestAcrossHostsReport: the text report of a run on two hosts (the header lines across
// hosts, then the table) and its JSON, against golden files.
func TestAcrossHostsReport(t *testing.T) {
	spec := builtinSpec(ModelH200SXM)
	spec.MinNetworkPutGBs = 5
	f := acrossHosts()
	pair(&f, 1, 3).PortPutGBs = 2.5
	checks := Evaluate(spec, f)
	var text bytes.Buffer
	if err := WriteAcrossHosts(&text, f, spec.PutBytes); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&text, checks); err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	r := Report{Spec: spec, Figures: f, Checks: checks, Pass: Passed(checks)}
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "across-hosts.txt", text.Bytes())
	golden(t, "across-hosts.json", js.Bytes())
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("JSON round trip:\n got %+v\nwant %+v", back, r)
	}
	if r.Pass {
		t.Error("a pair below the network put limit passed")
	}
	if last := lastLine(text.String()); !strings.Contains(last, "slowest/broken pairs: 1-3 (network put bandwidth 2.5 GB/s < 5)") {
		t.Errorf("summary %q does not name the slow pair across hosts", last)
	}
	var one bytes.Buffer
	if err := WriteAcrossHosts(&one, recorded(2), spec.PutBytes); err != nil || one.Len() != 0 {
		t.Errorf("one host: wrote %q, %v; want nothing", one.String(), err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// golden compares got with testdata/name (rewritten with -update).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./acceptance -run %s -update rewrites it):\n got:\n%s\nwant:\n%s", path, t.Name(), got, want)
	}
}
