package all

import (
	"slices"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/reducescatter"
)

// layoutOf builds a layout from host ids, with CUDA IPC inside every host unless noIPC.
func layoutOf(noIPC bool, hosts ...string) collectives.Layout {
	return collectives.NewLayout(hosts, func(i, j int) bool { return !noIPC })
}

// sharedGPUs returns l with some GPU serving several ranks (Layout.SharedGPU).
func sharedGPUs(l collectives.Layout) collectives.Layout {
	l.SharedGPU = true
	return l
}

func TestNewLayout(t *testing.T) {
	tests := []struct {
		hosts []string
		noIPC bool
		want  string
	}{
		{[]string{"a"}, false, "1 host (0), CUDA IPC inside each"},
		{[]string{"a", "a"}, false, "1 host (0,1), CUDA IPC inside each"},
		{[]string{"a", "b"}, false, "2 hosts (0 | 1), CUDA IPC inside each"},
		{[]string{"a", "b", "a", "b"}, false, "2 hosts (0,2 | 1,3), CUDA IPC inside each"},
		{[]string{"a", "a"}, true, "1 host (0,1), not all by CUDA IPC inside a host"},
		// nothing shares a host, so no pair inside one can lack CUDA IPC
		{[]string{"a", "b"}, true, "2 hosts (0 | 1), CUDA IPC inside each"},
	}
	for _, tt := range tests {
		l := layoutOf(tt.noIPC, tt.hosts...)
		if got := l.String(); got != tt.want {
			t.Errorf("layout of %v (noIPC %v) = %q, want %q", tt.hosts, tt.noIPC, got, tt.want)
		}
		if l.NRanks() != len(tt.hosts) {
			t.Errorf("layout of %v: NRanks %d", tt.hosts, l.NRanks())
		}
	}
	l := layoutOf(false, "a", "b", "a", "b")
	if h, i, rs := l.Local(3); h != 1 || i != 1 || len(rs) != 2 {
		t.Errorf("Local(3) = %d, %d, %v; want host 1, index 1, 2 ranks", h, i, rs)
	}
	if got := l.Rail(1); len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Errorf("Rail(1) = %v, want [2 3]", got)
	}
}

func TestFits(t *testing.T) {
	layouts := map[string]collectives.Layout{
		"one host":          collectives.OneHostLayout(4),
		"one host, no IPC":  layoutOf(true, "a", "a"),
		"two hosts of 1":    layoutOf(false, "a", "b"),
		"two hosts of 2":    layoutOf(false, "a", "a", "b", "b"),
		"uneven hosts":      layoutOf(false, "a", "a", "b"),
		"two hosts, no IPC": layoutOf(true, "a", "a", "b", "b"),
	}
	tests := []struct {
		needs collectives.Needs
		fits  []string
	}{
		{collectives.OneHost, []string{"one host"}},
		{collectives.HostGroups, []string{"one host", "two hosts of 1", "two hosts of 2"}},
		{collectives.AnyLayout, []string{"one host", "one host, no IPC", "two hosts of 1", "two hosts of 2", "uneven hosts", "two hosts, no IPC"}},
	}
	for _, tt := range tests {
		a := &collectives.Algorithm{Collective: "allgather", Name: "x", Needs: tt.needs}
		for name, l := range layouts {
			want := strings.Contains(","+strings.Join(tt.fits, ",")+",", ","+name+",")
			err := a.Fits(l)
			if (err == nil) != want {
				t.Errorf("needs %v on %s: Fits = %v, want fits %v", tt.needs, name, err, want)
			}
			if err != nil && !strings.Contains(err.Error(), tt.needs.String()) {
				t.Errorf("needs %v on %s: error %q does not say what is needed", tt.needs, name, err)
			}
		}
	}
}

// TestSelectTwoHosts: on two simulated hosts, auto and all offer only the algorithms that
// need no memory channel between hosts, at every size and type; on one host the choices
// are those of Select.
func TestSelectTwoHosts(t *testing.T) {
	layouts := []collectives.Layout{layoutOf(false, "h0", "h1"), layoutOf(false, "h0", "h0", "h1", "h1"), layoutOf(true, "h0", "h0")}
	for _, l := range layouts {
		for _, coll := range []string{"allgather", "allreduce"} {
			for _, dt := range collectives.Datatypes {
				for _, size := range SweepSizes() {
					auto, err := collectives.SelectIn(coll, "auto", size, l, dt.Name)
					if err != nil || len(auto) != 1 {
						t.Fatalf("SelectIn(%s, auto, %d, %v, %s) = %v, %v", coll, size, l, dt.Name, AlgNames(auto), err)
					}
					if auto[0].Needs == collectives.OneHost {
						t.Errorf("SelectIn(%s, auto, %d, %v, %s) = %s, which needs one host", coll, size, l, dt.Name, auto[0].Name)
					}
					all, err := collectives.SelectIn(coll, "all", size, l, dt.Name)
					if err != nil {
						t.Fatal(err)
					}
					for _, a := range all {
						if a.Fits(l) != nil {
							t.Errorf("SelectIn(%s, all, %d, %v) offers %s", coll, size, l, a.Name)
						}
					}
				}
			}
		}
	}
	two := layoutOf(false, "h0", "h1")
	for _, tt := range []struct{ coll, small, large, all string }{
		{"allgather", "hostoneshot", "portput", "portput,hier,hostput,hostoneshot"},
		{"allreduce", "hostoneshot", "portrsag", "portrsag,hier,portoneshot,hostoneshot,hostput,hostrsag"},
	} {
		coll := tt.coll
		for _, size := range []int64{8, 64 << 10, 1 << 30} {
			want := tt.small
			if size > 256<<10 {
				want = tt.large
			}
			got, err := collectives.SelectIn(coll, "auto", size, two, "float")
			if err != nil || got[0].Name != want {
				t.Errorf("SelectIn(%s, auto, %d, two hosts) = %v, %v; want %s", coll, size, AlgNames(got), err, want)
			}
		}
		all, _ := collectives.SelectIn(coll, "all", 1<<20, two, "float")
		if names := strings.Join(AlgNames(all), ","); names != tt.all {
			t.Errorf("SelectIn(%s, all, 1 MiB, two hosts) = %s, want %s", coll, names, tt.all)
		}
		if _, err := collectives.SelectIn(coll, "port", 1<<30, two, "float"); err == nil || !strings.Contains(err.Error(), "one host") {
			t.Errorf("SelectIn(%s, port, two hosts) = %v, want an error naming one host", coll, err)
		}
		if err := collectives.CheckLayout(coll, "port", two); err == nil {
			t.Errorf("CheckLayout(%s, port, two hosts) accepted a one-host algorithm", coll)
		}
		// the host-resident one shots: refused on one host connected by CUDA IPC (no
		// network) and wherever some pair uses CUDA IPC, while allgather's hostput serves
		// such pairs over NVLink
		if err := collectives.CheckLayout(coll, tt.small, collectives.OneHostLayout(2)); err == nil || !strings.Contains(err.Error(), "CUDA IPC") {
			t.Errorf("CheckLayout(%s, %s, one host) = %v, want an error naming CUDA IPC", coll, tt.small, err)
		}
		mixed := layoutOf(false, "h0", "h0", "h1")
		if err := collectives.CheckLayout(coll, tt.small, mixed); err == nil || !strings.Contains(err.Error(), "CUDA IPC") {
			t.Errorf("CheckLayout(%s, %s, %v) = %v, want an error naming CUDA IPC", coll, tt.small, mixed, err)
		}
		if err := collectives.CheckLayout("allgather", "hostput", mixed); coll == "allgather" && err != nil {
			t.Errorf("CheckLayout(allgather, hostput, %v) = %v, want it to fit", mixed, err)
		}
		for _, k := range []string{"auto", "all", tt.small, tt.large} {
			if err := collectives.CheckLayout(coll, k, two); err != nil {
				t.Errorf("CheckLayout(%s, %s, two hosts): %v", coll, k, err)
			}
		}
	}
	// every collective has an algorithm across hosts (portput, port_staged.go) and on one host
	for _, c := range collectives.Collectives() {
		for _, k := range []string{"auto", "all"} {
			for _, l := range []collectives.Layout{two, collectives.OneHostLayout(2)} {
				if err := collectives.CheckLayout(c.Name(), k, l); err != nil {
					t.Errorf("CheckLayout(%s, %s, %v): %v", c.Name(), k, l, err)
				}
			}
		}
	}
	// one host: the new algorithms never win auto where a one-host algorithm applies
	for _, coll := range []string{"allgather", "allreduce"} {
		for _, size := range SweepSizes() {
			got, err := collectives.SelectIn(coll, "auto", size, collectives.OneHostLayout(2), "float")
			if err != nil || got[0].Needs != collectives.OneHost {
				t.Errorf("SelectIn(%s, auto, %d, one host) = %v, %v; want a one-host algorithm", coll, size, AlgNames(got), err)
			}
		}
	}
}

// TestSelectHierarchical: which algorithms -k auto and -k all offer on each layout, auto's
// pick at 8 B, 64 KiB, 1, 2, 4, 64 and 256 MiB for allgather and allreduce. The
// hierarchical and rail algorithms win only across hosts of several ranks each (CUDA IPC
// inside): allgather railput up to the family's 4 MiB, hier above; allreduce on hosts of 2
// hostput up to 32 KiB, railput to 512 KiB, railrsag to 4 MiB, hier above, on hosts of 4
// railput up to 64 KiB, hier above. With one rank per host, under --transport ethernet inside a host (no CUDA
// IPC) and with uneven hosts neither fits, and the host-resident algorithms (hostput,
// hostoneshot, allgather's up to 64 KiB, and where no pair uses CUDA IPC on a power-of-two
// rank count hostrsag above 1 MiB) win up to their limits (hostput and hostrsag to 64 MiB where no pair uses CUDA
// IPC, hostput to 64 MiB on hosts of at most two ranks with a GPU each, to 4 MiB
// elsewhere), the flat port ones above; on one host the NVLink algorithms win
// ("" below: a one-host algorithm).
func TestSelectHierarchical(t *testing.T) {
	sizes := []int64{8, 64 << 10, 1 << 20, 2 << 20, 4 << 20, 64 << 20, 256 << 20}
	var (
		railGather  = [7]string{"railput", "railput", "railput", "railput", "railput", "hier", "hier"}
		hostGather  = [7]string{"hostoneshot", "hostoneshot", "hostput", "hostput", "hostput", "hostput", "portput"} // no pair over CUDA IPC
		ipcGather   = [7]string{"hostput", "hostput", "hostput", "hostput", "hostput", "portput", "portput"}
		fewGather   = [7]string{"hostput", "hostput", "hostput", "hostput", "hostput", "hostput", "portput"} // hosts of at most 2, a GPU each
		railReduce  = [7]string{"hostput", "railput", "railrsag", "railrsag", "railrsag", "hier", "hier"}
		oneShot     = [7]string{"hostoneshot", "hostoneshot", "hostoneshot", "hostrsag", "hostrsag", "hostrsag", "portrsag"}
		hierGather  = "portput,hier,hostput,railput"
		hierReduce  = "portrsag,hier,portoneshot,hostput,railput,railrsag,hostrsag"
		noneOneHost = [7]string{}
	)
	tests := []struct {
		name      string
		l         collectives.Layout
		hier      bool      // Layout.Hierarchical
		gather    [7]string // allgather auto at sizes
		reduce    [7]string // allreduce auto at sizes
		allGather string    // -k all's port, hier and host algorithms, in number order
		allReduce string
	}{
		{"1 host of 4", collectives.OneHostLayout(4), false, noneOneHost, noneOneHost, "portput,hier", "portrsag,hier,portoneshot"},
		{"2 hosts of 1", layoutOf(false, "a", "b"), false, hostGather, oneShot, "portput,hier,hostput,hostoneshot", "portrsag,hier,portoneshot,hostoneshot,hostput,hostrsag"},
		{"2 hosts of 2", layoutOf(false, "a", "a", "b", "b"), true, railGather, railReduce, hierGather, hierReduce},
		{"2 hosts of 2, interleaved", layoutOf(false, "a", "b", "a", "b"), true, railGather, railReduce, hierGather, hierReduce},
		{"4 hosts of 2", layoutOf(false, "a", "a", "b", "b", "c", "c", "d", "d"), true, railGather, railReduce, hierGather, hierReduce},
		{"2 hosts of 4", layoutOf(false, "a", "a", "a", "a", "b", "b", "b", "b"), true,
			railGather, [7]string{"railput", "railput", "hier", "hier", "hier", "hier", "hier"}, hierGather, hierReduce},
		{"2 hosts of 2, no IPC", layoutOf(true, "a", "a", "b", "b"), true, hostGather, oneShot, "portput,hostput,hostoneshot", "portrsag,portoneshot,hostoneshot,hostput,hostrsag"},
		// hostrsag only on a power-of-two rank count (3 ranks: portrsag above 1 MiB)
		{"3 hosts of 1", layoutOf(false, "a", "b", "c"), false, hostGather,
			[7]string{"hostoneshot", "hostoneshot", "hostoneshot", "portrsag", "portrsag", "portrsag", "portrsag"}, "portput,hier,hostput,hostoneshot", "portrsag,hier,portoneshot,hostoneshot,hostput,hostrsag"},
		{"uneven hosts", layoutOf(false, "a", "a", "b"), true,
			fewGather, [7]string{"hostput", "hostput", "hostput", "portrsag", "portrsag", "portrsag", "portrsag"}, "portput,hostput", "portrsag,portoneshot,hostput,hostrsag"},
		{"uneven hosts of 4 and 3", layoutOf(false, "a", "a", "a", "a", "b", "b", "b"), true,
			ipcGather, [7]string{"hostput", "hostput", "hostput", "portrsag", "portrsag", "portrsag", "portrsag"}, "portput,hostput", "portrsag,portoneshot,hostput,hostrsag"},
		// ranks sharing GPUs: rail routing from the smallest size (portstaged.RailAuto)
		{"2 hosts of 2, shared GPUs", sharedGPUs(layoutOf(false, "a", "a", "b", "b")), true,
			railGather, [7]string{"railput", "railput", "railrsag", "railrsag", "railrsag", "hier", "hier"}, hierGather, hierReduce},
		{"2 hosts of 4, shared GPUs", sharedGPUs(layoutOf(false, "a", "a", "a", "a", "b", "b", "b", "b")), true,
			railGather, [7]string{"railput", "railput", "hier", "hier", "hier", "hier", "hier"}, hierGather, hierReduce},
		{"2 hosts of 1, shared GPUs", sharedGPUs(layoutOf(false, "a", "b")), false, hostGather, oneShot, "portput,hier,hostput,hostoneshot", "portrsag,hier,portoneshot,hostoneshot,hostput,hostrsag"},
		{"uneven hosts, shared GPUs", sharedGPUs(layoutOf(false, "a", "a", "b")), true,
			ipcGather, [7]string{"hostput", "hostput", "hostput", "portrsag", "portrsag", "portrsag", "portrsag"}, "portput,hostput", "portrsag,portoneshot,hostput,hostrsag"},
	}
	for _, tt := range tests {
		if got := tt.l.Hierarchical(); got != tt.hier {
			t.Errorf("%s: Hierarchical = %v, want %v", tt.name, got, tt.hier)
		}
		for _, c := range []struct {
			coll string
			auto [7]string
			all  string
		}{
			{"allgather", tt.gather, tt.allGather},
			{"allreduce", tt.reduce, tt.allReduce},
		} {
			for i, size := range sizes {
				want := c.auto[i]
				got, err := collectives.SelectIn(c.coll, "auto", size, tt.l, "float")
				if err != nil || len(got) != 1 {
					t.Fatalf("%s: SelectIn(%s, auto, %d) = %v, %v", tt.name, c.coll, size, AlgNames(got), err)
				}
				if want == "" && got[0].Needs != collectives.OneHost || want != "" && got[0].Name != want {
					t.Errorf("%s: SelectIn(%s, auto, %d) = %s, want %q (\"\": one-host)", tt.name, c.coll, size, got[0].Name, want)
				}
			}
			all, err := collectives.SelectIn(c.coll, "all", 1<<20, tt.l, "float")
			if err != nil {
				t.Fatal(err)
			}
			var port []string
			for _, a := range all {
				if a.Needs != collectives.OneHost {
					port = append(port, a.Name)
				}
			}
			if got := strings.Join(port, ","); got != c.all {
				t.Errorf("%s: SelectIn(%s, all) offers %s beside the one-host algorithms, want %s", tt.name, c.coll, got, c.all)
			}
			err = collectives.CheckLayout(c.coll, "hier", tt.l)
			if fits := strings.Contains(c.all, "hier"); (err == nil) != fits {
				t.Errorf("%s: CheckLayout(%s, hier) = %v, want fits %v", tt.name, c.coll, err, fits)
			}
		}
	}
}

// TestSelectAllreduceTwoRanks: on two ranks where no pair uses CUDA IPC (2 hosts of one
// rank, sharing a GPU or not, and --transport ethernet on one host) -k auto takes
// allreduce's hostput one shot above 4 MiB to 32 MiB and hostrsag around it; on more
// ranks hostrsag (a power-of-two count) or portrsag keep those sizes.
func TestSelectAllreduceTwoRanks(t *testing.T) {
	sizes := []int64{4 << 20, 4<<20 + 4, 8 << 20, 32 << 20, 32<<20 + 4, 64 << 20}
	two := [6]string{"hostrsag", "hostput", "hostput", "hostput", "hostrsag", "hostrsag"}
	for _, tt := range []struct {
		name string
		l    collectives.Layout
		want [6]string
	}{
		{"2 hosts of 1", layoutOf(false, "a", "b"), two},
		{"2 hosts of 1, shared GPUs", sharedGPUs(layoutOf(false, "a", "b")), two},
		{"1 host, no IPC", layoutOf(true, "a", "a"), two},
		{"4 hosts of 1", layoutOf(false, "a", "b", "c", "d"), [6]string{"hostrsag", "hostrsag", "hostrsag", "hostrsag", "hostrsag", "hostrsag"}},
		{"3 hosts of 1", layoutOf(false, "a", "b", "c"), [6]string{"portrsag", "portrsag", "portrsag", "portrsag", "portrsag", "portrsag"}},
	} {
		for i, size := range sizes {
			for _, inPlace := range []bool{false, true} {
				got, err := collectives.SelectPlaced("allreduce", "auto", size, tt.l, "float", inPlace)
				if err != nil || len(got) != 1 || got[0].Name != tt.want[i] {
					t.Errorf("%s: SelectPlaced(allreduce, auto, %d, in place %v) = %v, %v; want %s", tt.name, size, inPlace, AlgNames(got), err, tt.want[i])
				}
			}
		}
	}
}

// TestSelectReduceScatterHostOneShot: -k auto takes reducescatter's hostoneshot up to
// reducescatter.HostOneShotAutoMax where no pair uses CUDA IPC (hosts of one rank, shared
// GPUs or not; a network transport inside one host), hostput above it; where some pair
// uses CUDA IPC hostoneshot does not fit, and auto keeps what it took without it.
func TestSelectReduceScatterHostOneShot(t *testing.T) {
	sizes := []int64{0, 64, 16 << 10, reducescatter.HostOneShotAutoMax, reducescatter.HostOneShotAutoMax + 16, 1 << 20}
	one := [6]string{"hostoneshot", "hostoneshot", "hostoneshot", "hostoneshot", "hostput", "hostput"}
	for _, tt := range []struct {
		name string
		l    collectives.Layout
		want [6]string
	}{
		{"2 hosts of 1", layoutOf(false, "a", "b"), one},
		{"3 hosts of 1, shared GPUs", sharedGPUs(layoutOf(false, "a", "b", "c")), one},
		{"1 host, no IPC", layoutOf(true, "a", "a"), one},
		{"hosts of 2 and 1", layoutOf(false, "a", "a", "b"), [6]string{"hostput", "hostput", "hostput", "hostput", "hostput", "hostput"}},
		{"1 host", layoutOf(false, "a", "a"), [6]string{"ll16", "ll16", "ll16", "ll16", "ll16", "ll16"}},
	} {
		for i, size := range sizes {
			for _, inPlace := range []bool{false, true} {
				got, err := collectives.SelectPlaced("reducescatter", "auto", size, tt.l, "float", inPlace)
				if err != nil || len(got) != 1 || got[0].Name != tt.want[i] {
					t.Errorf("%s: SelectPlaced(reducescatter, auto, %d, in place %v) = %v, %v; want %s", tt.name, size, inPlace, AlgNames(got), err, tt.want[i])
				}
			}
		}
		all, err := collectives.SelectIn("reducescatter", "all", 64, tt.l, "float")
		if err != nil {
			t.Fatal(err)
		}
		if has, want := slices.Contains(AlgNames(all), "hostoneshot"), tt.want[0] == "hostoneshot"; has != want {
			t.Errorf("%s: -k all at 64 B = %v; hostoneshot in it %v, want %v", tt.name, AlgNames(all), has, want)
		}
	}
}

// TestSelectMPSNetwork: where ranks share a GPU under MPS and pairs talk over a network,
// the hierarchical algorithms are refused with the reason (-k hier), auto takes the
// host-resident ones at 8 B (railput, which runs there, on hosts of 2; allreduce
// hostoneshot on hosts of 1) and
// all leaves hier out; the same layout without MPS keeps them.
func TestSelectMPSNetwork(t *testing.T) {
	for _, c := range []struct {
		name       string
		l          collectives.Layout
		auto, all  string // allreduce at 8 B: auto's pick, and -k all's port and hier algorithms
		gatherAuto string
	}{
		{"2 hosts of 2", layoutOf(false, "a", "a", "b", "b"), "hostput", "portrsag,hier,portoneshot,hostput,railput,railrsag,hostrsag", "railput"},
		{"2 hosts of 2, MPS", layoutOf(false, "a", "a", "b", "b"), "railput", "portrsag,portoneshot,hostput,railput,railrsag,hostrsag", "railput"},
		{"2 hosts of 1, MPS", layoutOf(false, "a", "b"), "hostoneshot", "portrsag,portoneshot,hostoneshot,hostput,hostrsag", "hostoneshot"},
	} {
		mps := strings.HasSuffix(c.name, "MPS")
		c.l.MPSNetwork, c.l.SharedGPU = mps, mps // the worker sets MPSNetwork only where ranks share a GPU
		got, err := collectives.SelectIn("allreduce", "auto", 8, c.l, "float")
		if err != nil || len(got) != 1 || got[0].Name != c.auto {
			t.Errorf("%s: allreduce auto = %v, %v; want %s", c.name, AlgNames(got), err, c.auto)
		}
		got, err = collectives.SelectIn("allgather", "auto", 8, c.l, "float")
		if err != nil || len(got) != 1 || got[0].Name != c.gatherAuto {
			t.Errorf("%s: allgather auto = %v, %v; want %s", c.name, AlgNames(got), err, c.gatherAuto)
		}
		all, err := collectives.SelectIn("allreduce", "all", 8, c.l, "float")
		if err != nil {
			t.Fatal(err)
		}
		var port []string
		for _, a := range all {
			if a.Needs != collectives.OneHost {
				port = append(port, a.Name)
			}
		}
		if got := strings.Join(port, ","); got != c.all {
			t.Errorf("%s: allreduce all = %s, want %s", c.name, got, c.all)
		}
		for _, coll := range []string{"allreduce", "allgather"} {
			err := collectives.CheckLayout(coll, "hier", c.l)
			switch {
			case mps && (err == nil || !strings.Contains(err.Error(), "under MPS") || !strings.Contains(err.Error(), "docs/gpu-testing.md")):
				t.Errorf("%s: CheckLayout(%s, hier) = %v, want the MPS reason", c.name, coll, err)
			case !mps && err != nil:
				t.Errorf("%s: CheckLayout(%s, hier) = %v", c.name, coll, err)
			}
			if err := collectives.CheckLayout(coll, "auto", c.l); err != nil {
				t.Errorf("%s: CheckLayout(%s, auto) = %v", c.name, coll, err)
			}
		}
	}
}

// TestNetworkOnly: the layouts with no pair of ranks over CUDA IPC, which the
// host-resident algorithms (Needs NoIPC) need.
func TestNetworkOnly(t *testing.T) {
	tests := []struct {
		name string
		l    collectives.Layout
		want bool
	}{
		{"1 host of 2", collectives.OneHostLayout(2), false},
		{"1 host of 2, no IPC", layoutOf(true, "a", "a"), true},
		{"2 hosts of 1", layoutOf(false, "a", "b"), true},
		{"2 hosts of 2", layoutOf(false, "a", "a", "b", "b"), false},
		{"2 hosts of 2, no IPC", layoutOf(true, "a", "a", "b", "b"), true},
		{"uneven hosts", layoutOf(false, "a", "a", "b"), false},
		{"a literal of one rank per host", collectives.Layout{Hosts: [][]int{{0}, {1}, {2}}, HostIPC: true}, true},
	}
	for _, tt := range tests {
		if got := tt.l.NetworkOnly(); got != tt.want {
			t.Errorf("%s (%v): NetworkOnly = %v, want %v", tt.name, tt.l, got, tt.want)
		}
		err := (&collectives.Algorithm{Collective: "allreduce", Name: "x", Needs: collectives.NoIPC}).Fits(tt.l)
		if (err == nil) != tt.want {
			t.Errorf("%s: Fits(NoIPC) = %v, want fits %v", tt.name, err, tt.want)
		}
	}
}
