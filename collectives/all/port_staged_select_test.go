package all

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allreduce"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/broadcast"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/reducescatter"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/sendrecv"
)

// TestPortStagedRegistry: every collective that registers the port-staged family has
// portput (#5), found by name and number, on two or more ranks of any layout, every type.
func TestPortStagedRegistry(t *testing.T) {
	for _, pc := range portstaged.Collectives() {
		for _, k := range []string{"portput", "5"} {
			a, err := collectives.Find(pc.Name, k)
			if err != nil || a.Name != "portput" || a.Number != portstaged.PortStagedNumber {
				t.Fatalf("Find(%s, %s) = %v, %v; want portput (#5)", pc.Name, k, a, err)
			}
			if a.MinRanks != 2 || a.MaxBytes != 0 || a.Types != nil || a.Needs != collectives.AnyLayout || a.Doc == "" || a.New == nil {
				t.Errorf("%s portput: MinRanks %d, MaxBytes %d, Types %v, Needs %v, Doc %q", pc.Name, a.MinRanks, a.MaxBytes, a.Types, a.Needs, a.Doc)
			}
		}
	}
	var names []string
	for _, pc := range portstaged.Collectives() {
		names = append(names, pc.Name)
	}
	// and hostput (#7), on two or more ranks where some pair talks over a network, up to
	// algo.HostStagedMax, in the same collectives and modes and in allgather (whose portput
	// is its own)
	// (and allreduce's one shot, #9, automatic only where some host has several ranks;
	// broadcast's up to broadcast.HostPutMax, automatic to there; those of streamedLarge
	// and reduce up to portstaged.StreamedMax, automatic to streamedAutoMax where no pair
	// uses CUDA IPC and on hosts of 2 ranks with a GPU each, else (hosts of 4, shared GPUs)
	// to algo.HostStagedAutoMax, reduce's to 4 MiB on more than two ranks: hostLargest)
	want := append([]portstaged.Use{{Name: "allgather", Mode: portstaged.PSAllgather}}, portstaged.Collectives()...)
	hostWant := slices.Insert(slices.Clone(want), 1, portstaged.Use{Name: "allreduce", Mode: portstaged.PSAllreduce})
	if host := portstaged.HostCollectives(); !slices.Equal(host, hostWant) {
		t.Errorf("hostput registered by %v, want %v", host, hostWant)
	}
	for _, pc := range portstaged.HostCollectives() {
		number := portstaged.HostStagedNumber
		autoOK := func(a *collectives.Algorithm) bool { return a.AutoMax == algo.HostStagedAutoMax }
		maxBytes := int64(algo.HostStagedMax)
		if pc.Name == "allreduce" { // railput and hier take the larger messages
			number = allreduce.HostPutNumber
			autoOK = autoBelow
			maxBytes = portstaged.StreamedMax // on two ranks: hostLargest
		}
		if pc.Name == "broadcast" {
			maxBytes = broadcast.HostPutMax
			autoOK = func(a *collectives.Algorithm) bool { return a.AutoMax == broadcast.HostPutMax }
		}
		if streamedLarge[pc.Name] || wholeLarge[pc.Name] {
			maxBytes = portstaged.StreamedMax
			autoOK = func(a *collectives.Algorithm) bool {
				oneL, twoL := layoutOf(false, "a", "b"), layoutOf(false, "a", "a", "b", "b")
				_, one := a.AutoRange(oneL)
				_, oneShared := a.AutoRange(sharedGPUs(oneL))
				_, two := a.AutoRange(twoL)
				_, shared := a.AutoRange(sharedGPUs(twoL))
				_, four := a.AutoRange(layoutOf(false, "a", "a", "a", "a", "b", "b", "b", "b"))
				return one == streamedAutoMax(pc.Name, "2 hosts of 1") &&
					oneShared == streamedAutoMax(pc.Name, "2 hosts of 1, shared GPUs") &&
					two == streamedAutoMax(pc.Name, "2 hosts of 2") &&
					shared == algo.HostStagedAutoMax && four == algo.HostStagedAutoMax
			}
		}
		for _, k := range []string{"hostput", fmt.Sprint(number)} {
			a, err := collectives.Find(pc.Name, k)
			if err != nil || a.Name != "hostput" || a.Number != number {
				t.Fatalf("Find(%s, %s) = %v, %v; want hostput (#%d)", pc.Name, k, a, err, number)
			}
			for _, n := range []int{2, 3, 4, 8} {
				want := maxBytes
				if l := hostLargest(pc.Name, n); l > 0 {
					want = l
				}
				if a.Largest(n) != want {
					t.Errorf("%s hostput on %d ranks: largest message %d, want %d", pc.Name, n, a.Largest(n), want)
				}
			}
			if a.MinRanks != 2 || a.MaxBytes != maxBytes || !autoOK(a) || a.Types != nil ||
				a.Needs != collectives.SomeNetwork || !a.AnyOffset || a.Doc == "" || a.New == nil {
				t.Errorf("%s hostput: MinRanks %d, MaxBytes %d, AutoMax %d, Types %v, Needs %v, AnyOffset %v, Doc %q",
					pc.Name, a.MinRanks, a.MaxBytes, a.AutoMax, a.Types, a.Needs, a.AnyOffset, a.Doc)
			}
		}
	}
	// and railput (#8; allreduce's #10), hostput with rail routing, in the same collectives
	// and modes, on several hosts of equal rank counts, at least 2 each
	if rail := portstaged.RailCollectives(); !slices.Equal(rail, hostWant) {
		t.Errorf("railput registered by %v, want %v", rail, hostWant)
	}
	for _, pc := range portstaged.RailCollectives() {
		number := portstaged.RailNumber
		autoOK := func(a *collectives.Algorithm) bool { return a.AutoMax == algo.HostStagedAutoMax }
		if pc.Name == "allreduce" { // hier takes the larger messages on hosts of 4
			number = allreduce.RailPutNumber
			autoOK = autoBelow
		}
		a, err := collectives.Find(pc.Name, fmt.Sprint(number))
		if err != nil || a.Name != "railput" || a.Number != number {
			t.Fatalf("Find(%s, %d) = %v, %v; want railput (#%d)", pc.Name, number, a, err, number)
		}
		if a.MinRanks != 4 || a.MaxBytes != algo.HostStagedMax || !autoOK(a) || a.Types != nil ||
			a.Needs != collectives.Rails || !a.AnyOffset || a.Doc == "" || a.New == nil {
			t.Errorf("%s railput: MinRanks %d, MaxBytes %d, AutoMax %d, Types %v, Needs %v, AnyOffset %v, Doc %q",
				pc.Name, a.MinRanks, a.MaxBytes, a.AutoMax, a.Types, a.Needs, a.AnyOffset, a.Doc)
		}
	}
	// every collective but the two whose port-only algorithms came first
	for _, c := range collectives.Collectives() {
		if n := c.Name(); n != "allgather" && n != "allreduce" && !slices.Contains(names, n) {
			t.Errorf("collective %s has no portput", n)
		}
	}
}

// autoBelow says a's automatic range is set by layout (AutoSizes), some size on the
// layouts of 2 hosts of 2 and of 4 ranks is automatic, and none above
// algo.HostStagedAutoMax on either.
func autoBelow(a *collectives.Algorithm) bool {
	ok := a.AutoSizes != nil
	for _, l := range []collectives.Layout{layoutOf(false, "a", "a", "b", "b"), layoutOf(false, "a", "a", "a", "a", "b", "b", "b", "b")} {
		lo, hi := a.AutoRange(l)
		ok = ok && hi > 0 && lo <= hi && hi <= algo.HostStagedAutoMax
	}
	return ok
}

// streamedLarge are the collectives whose hostput takes messages to
// portstaged.StreamedMax.
var streamedLarge = map[string]bool{"allgather": true, "alltoall": true, "reducescatter": true, "gather": true, "scatter": true, "hypercube": true, "sendrecv": true}

// wholeLarge are the collectives whose hostput takes messages over algo.HostStagedMax on
// two ranks only (portstaged.WholeMax: a segment of theirs can be the whole message),
// automatic to there as streamedLarge's; allreduce's is too, with its own automatic range.
var wholeLarge = map[string]bool{"reduce": true, "alltoallv": true}

// streamedAutoMax is the largest message -k auto gives collective name's hostput (one of
// streamedLarge, or reduce or alltoallv) on the layout named layout where no pair uses
// CUDA IPC or hosts have at most 2 ranks with a GPU each, before the rank count's bound
// (hostLargest): sendrecv's to sendrecv.HostPutAutoMax but on sendrecvWhole's layouts.
func streamedAutoMax(name, layout string) int64 {
	if name == "sendrecv" && !sendrecvWhole[layout] {
		return sendrecv.HostPutAutoMax
	}
	return portstaged.StreamedMax
}

// sendrecvWhole are the layouts (TestPortStagedSelect's names) where -k auto takes
// sendrecv's hostput to portstaged.StreamedMax: no pair over CUDA IPC, a GPU a rank.
var sendrecvWhole = map[string]bool{"2 hosts of 1": true, "4 hosts of 1": true, "1 host, no IPC": true}

// hostLargest is the largest message collective name's hostput takes on nranks ranks
// beyond algo.HostStagedMax: broadcast.HostPutMax, portstaged.StreamedMax (streamedLarge),
// wholeLarge's 64 MiB on two ranks and 4 MiB on more (their slots hold the whole message
// for every peer); 0 for the others.
func hostLargest(name string, nranks int) int64 {
	switch {
	case name == "broadcast":
		return broadcast.HostPutMax
	case streamedLarge[name]:
		return portstaged.StreamedMax
	case wholeLarge[name] || name == "allreduce":
		if nranks == 2 {
			return 64 << 20
		}
		return 4 << 20
	}
	return 0
}

// TestPortStagedSelect: across hosts (one rank per host, two per host, hosts of unequal
// rank counts, and a network transport inside one host) -k auto picks hostput up to
// algo.HostStagedAutoMax (railput on hosts of 4 ranks, on hosts of 2 whose ranks share
// GPUs, sendrecv there only up to 64 KiB, for reduce-scatter and reduce on hosts of 2,
// and for broadcast on hosts of 2 from 256 KiB to below 1 MiB; broadcast's up to
// broadcast.HostPutMax, and those of streamedLarge and reduce up to streamedAutoMax where
// no pair uses CUDA IPC and on hosts of at most 2 ranks with a GPU each, reduce's to
// hostLargest; reducescatter's hostoneshot before them
// up to reducescatter.HostOneShotAutoMax where no pair uses CUDA IPC), portput at every
// other size and type, and -k all offers them and nothing that needs one host; on one host
// connected by CUDA IPC, -k auto picks exactly what it picks without either.
func TestPortStagedSelect(t *testing.T) {
	across := map[string]collectives.Layout{
		"2 hosts of 1":          layoutOf(false, "h0", "h1"),
		"2 hosts of 2":          layoutOf(false, "h0", "h0", "h1", "h1"),
		"2 hosts of 2, crossed": layoutOf(false, "h0", "h1", "h0", "h1"),
		"hosts of 2 and 1":      layoutOf(false, "h0", "h0", "h1"),
		"4 hosts of 1":          layoutOf(false, "a", "b", "c", "d"),
		"1 host, no IPC":        layoutOf(true, "h0", "h0"),
	}
	// where railput fits (hosts of equal rank counts, several each), -k all offers it; on
	// hosts of portstaged.RailAutoLocal ranks or more auto takes it over hostput,
	across["2 hosts of 4"] = layoutOf(false, "h0", "h0", "h0", "h0", "h1", "h1", "h1", "h1")
	// and where ranks share GPUs, on hosts of several ranks (hosts of 1 and uneven hosts
	// keep hostput)
	across["2 hosts of 2, shared GPUs"] = sharedGPUs(layoutOf(false, "h0", "h0", "h1", "h1"))
	across["hosts of 2 and 1, shared GPUs"] = sharedGPUs(layoutOf(false, "h0", "h0", "h1"))
	across["2 hosts of 1, shared GPUs"] = sharedGPUs(layoutOf(false, "h0", "h1"))
	rails := map[string]bool{"2 hosts of 2": true, "2 hosts of 2, crossed": true, "2 hosts of 4": true, "2 hosts of 2, shared GPUs": true}
	noIPC := map[string]bool{"2 hosts of 1": true, "4 hosts of 1": true, "1 host, no IPC": true, "2 hosts of 1, shared GPUs": true}
	// the streamed hostput is automatic above 4 MiB there and on hosts of at most 2 ranks
	// with a GPU each (portstaged.FewPerHost)
	streamedAuto := map[string]bool{"2 hosts of 2": true, "2 hosts of 2, crossed": true, "hosts of 2 and 1": true}
	for name := range noIPC {
		streamedAuto[name] = true
	}
	railAuto := map[string]bool{"2 hosts of 4": true, "2 hosts of 2, shared GPUs": true}
	// reduce-scatter and reduce, whose railput reduces inside the host first, take it on
	// hosts of 2 ranks too
	hostFirst := map[string]bool{"reducescatter": true, "reduce": true}
	for _, pc := range portstaged.Collectives() {
		for name, l := range across {
			if err := collectives.CheckLayout(pc.Name, "auto", l); err != nil {
				t.Errorf("CheckLayout(%s, auto, %s): %v", pc.Name, name, err)
			}
			if err := collectives.CheckLayout(pc.Name, "portput", l); err != nil {
				t.Errorf("CheckLayout(%s, portput, %s): %v", pc.Name, name, err)
			}
			if err := collectives.CheckLayout(pc.Name, "hostput", l); err != nil {
				t.Errorf("CheckLayout(%s, hostput, %s): %v", pc.Name, name, err)
			}
			// railput fits only hosts of equal rank counts, 2 or more; elsewhere it is refused
			// naming what it needs
			err := collectives.CheckLayout(pc.Name, "railput", l)
			if rails[name] && err != nil || !rails[name] && (err == nil || !strings.Contains(err.Error(), "equal rank counts, at least 2")) {
				t.Errorf("CheckLayout(%s, railput, %s) = %v, want fits %v", pc.Name, name, err, rails[name])
			}
			for _, dt := range collectives.Datatypes {
				for _, size := range SweepSizes() {
					want := "portput"
					if pc.Name == "broadcast" && size <= broadcast.HostPutMax {
						want = "hostput" // above the family's sizes too
					}
					if (streamedLarge[pc.Name] || wholeLarge[pc.Name]) && streamedAuto[name] && size <= min(streamedAutoMax(pc.Name, name), hostLargest(pc.Name, l.NRanks())) {
						want = "hostput"
					}
					if size <= algo.HostStagedAutoMax {
						want = "hostput"
						if railAuto[name] || rails[name] && hostFirst[pc.Name] {
							want = "railput"
						}
						// sendrecv takes railput on shared GPUs only up to 64 KiB
						if pc.Name == "sendrecv" && name == "2 hosts of 2, shared GPUs" && size > 64<<10 {
							want = "hostput"
						}
						// broadcast takes railput on hosts of 2 from 256 KiB to below 1 MiB
						if pc.Name == "broadcast" && rails[name] && size >= broadcast.RailPutAutoMin && size <= broadcast.RailPutAutoMax {
							want = "railput"
						}
					}
					// reducescatter's own one shot takes the small sizes where no pair uses CUDA IPC
					if pc.Name == "reducescatter" && noIPC[name] && size <= reducescatter.HostOneShotAutoMax {
						want = "hostoneshot"
					}
					got, err := collectives.SelectIn(pc.Name, "auto", size, l, dt.Name)
					if err != nil || len(got) != 1 || got[0].Name != want {
						t.Fatalf("SelectIn(%s, auto, %d, %s, %s) = %v, %v; want %s", pc.Name, size, name, dt.Name, AlgNames(got), err, want)
					}
					in, err := collectives.SelectPlaced(pc.Name, "auto", size, l, dt.Name, true)
					if err != nil || in[0].Name != want {
						t.Fatalf("SelectPlaced(%s, auto, %d, %s, in place) = %v, %v; want %s", pc.Name, size, name, AlgNames(in), err, want)
					}
				}
			}
			host := "portput,hostput"
			if rails[name] {
				host += ",railput"
			}
			sizes := map[int64]string{algo.HostStagedMax: host, algo.HostStagedMax + 4: "portput"}
			if pc.Name == "broadcast" {
				sizes[algo.HostStagedMax+4] = "portput,hostput"
				sizes[broadcast.HostPutMax] = "portput,hostput"
				sizes[broadcast.HostPutMax+4] = "portput"
			}
			if largest := hostLargest(pc.Name, l.NRanks()); pc.Name != "broadcast" && largest > algo.HostStagedMax {
				sizes[algo.HostStagedMax+4] = "portput,hostput"
				sizes[largest] = "portput,hostput"
				sizes[largest+4] = "portput"
			}
			for size, want := range sizes {
				all, err := collectives.SelectIn(pc.Name, "all", size, l, "float")
				if names := strings.Join(AlgNames(all), ","); err != nil || names != want {
					t.Errorf("SelectIn(%s, all, %d, %s) = %s, %v; want %s", pc.Name, size, name, names, err, want)
				}
			}
		}
		// a one-host algorithm named across hosts: refused, naming what it needs
		for _, a := range collectives.Algorithms(pc.Name) {
			if a.Needs == collectives.OneHost && a.Name != "local" {
				if err := collectives.CheckLayout(pc.Name, a.Name, across["2 hosts of 1"]); err == nil || !strings.Contains(err.Error(), "one host") {
					t.Errorf("CheckLayout(%s, %s, 2 hosts) = %v, want an error naming one host", pc.Name, a.Name, err)
				}
			}
		}
	}
	// one host by CUDA IPC: auto's choices with and without portput and hostput are the same
	for _, pc := range portstaged.Collectives() {
		with := autoChoices(t, pc.Name)
		saved := collectives.Algorithms(pc.Name)
		collectives.SetAlgorithms(pc.Name, slices.DeleteFunc(slices.Clone(saved), func(a *collectives.Algorithm) bool {
			return a.Name == "portput" || a.Name == "hostput"
		}))
		without := autoChoices(t, pc.Name)
		collectives.SetAlgorithms(pc.Name, saved)
		if len(with) != len(without) {
			t.Fatalf("%s: %d choices with portput, %d without", pc.Name, len(with), len(without))
		}
		for i := range with {
			if with[i] != without[i] {
				t.Errorf("%s on one host: auto picks %s with portput and hostput, %s without", pc.Name, with[i], without[i])
			}
		}
	}
}

// autoChoices lists -k auto's pick (or error) on one host of 2, 4 and 8 ranks at every
// sweep size, type and placement.
func autoChoices(t *testing.T, coll string) []string {
	t.Helper()
	var out []string
	for _, n := range []int{2, 4, 8} {
		for _, dt := range collectives.Datatypes {
			for _, size := range SweepSizes() {
				for _, inPlace := range []bool{false, true} {
					got, err := collectives.SelectPlaced(coll, "auto", size, collectives.OneHostLayout(n), dt.Name, inPlace)
					if err != nil {
						out = append(out, "error: "+err.Error())
					} else {
						out = append(out, got[0].Name)
					}
				}
			}
		}
	}
	return out
}

// TestPortStagedSchedule: for every collective with a hostput (portput's and allgather's and
// allreduce's), on 2 to 8 ranks, for every type and for sizes from 0 to 1 GiB
// (powers of two and odd ones), every segment of port_staged_device.cuh's schedule (psSendSeg,
// psRecvOff) lies inside the sender's input and the receiver's output, fits a slot, the
// receiver's segments do not overlap, and a launch's slots fit the big region set up for
// its size. It checks the Go schedule (psSendSeg, psRecvOff), which the stand-in kernel
// transcribes; collectives/family/portstaged/port_staged_device.cuh computes the same offsets on
// its own, so a drift between the two shows only in the GPU suite.
func TestPortStagedSchedule(t *testing.T) {
	sizes := SweepSizes()[:31] // up to 1 GiB
	sizes = append(sizes, 1, 3, 1000, 33337, 100000, 1<<20+7)
	for _, pc := range portstaged.HostCollectives() {
		coll, err := collectives.Lookup(pc.Name)
		if err != nil {
			t.Fatal(err)
		}
		for n := 2; n <= 8; n++ {
			for _, dt := range collectives.Datatypes {
				for _, size := range sizes {
					c := coll.Counts(size, dt, n)
					elt := uint64(dt.Size)
					a := &collectives.LaunchArgs{Type: dt, Count: c.Send, Param: c.Param, SendBytes: uint64(c.Send) * elt, RecvBytes: uint64(c.Recv) * elt}
					unit, slot, total := pc.Mode.UnitSlot(a, n)
					if need, big := pc.Mode.Slots(n)*slot, pc.Mode.BigBytes(size, n); need > big {
						t.Fatalf("%s %d B %s on %d ranks: %d bytes of slots, big region %d", pc.Name, size, dt.Name, n, need, big)
					}
					for root := 0; root < n; root += max(1, n-1) {
						for to := 0; to < n; to++ {
							var got uint64
							var ends [][2]uint64
							for from := 0; from < n; from++ {
								off, bytes := psSendSeg(pc.Mode, uint64(from), uint64(to), unit, total, uint64(root), uint64(n))
								if bytes == 0 {
									continue
								}
								if off+bytes > a.SendBytes || (from != to && bytes > slot) {
									t.Fatalf("%s %d B %s on %d ranks, root %d: rank %d sends rank %d [%d, +%d) of %d input bytes, slot %d",
										pc.Name, size, dt.Name, n, root, from, to, off, bytes, a.SendBytes, slot)
								}
								if pc.Mode == portstaged.PSReduce || pc.Mode == portstaged.PSReduceScatter || pc.Mode == portstaged.PSAllreduce {
									continue // reduced, not placed
								}
								at := psRecvOff(pc.Mode, uint64(from), uint64(to), unit, total, uint64(n))
								if at+bytes > a.RecvBytes {
									t.Fatalf("%s %d B %s on %d ranks: rank %d's segment lands at [%d, +%d) of rank %d's %d output bytes",
										pc.Name, size, dt.Name, n, from, at, bytes, to, a.RecvBytes)
								}
								for _, e := range ends {
									if at < e[1] && e[0] < at+bytes {
										t.Fatalf("%s %d B %s on %d ranks: segments overlap in rank %d's output", pc.Name, size, dt.Name, n, to)
									}
								}
								ends = append(ends, [2]uint64{at, at + bytes})
								got += bytes
							}
							// what a rank receives fills its output (gather: the root's; the others' stay as they were)
							if pc.Mode != portstaged.PSReduce && pc.Mode != portstaged.PSReduceScatter && pc.Mode != portstaged.PSAllreduce && !(pc.Mode == portstaged.PSGather && to != root) && got != a.RecvBytes {
								t.Fatalf("%s %d B %s on %d ranks, root %d: rank %d receives %d bytes of %d", pc.Name, size, dt.Name, n, root, to, got, a.RecvBytes)
							}
						}
					}
				}
			}
		}
	}
}

// TestAllgatherHostPutSelect: all-gather's hostput, whose portput is its own, is -k auto's
// choice to portstaged.StreamedMax where no pair uses CUDA IPC, and hier's above 4 MiB
// where hosts have several ranks.
func TestAllgatherHostPutSelect(t *testing.T) {
	for _, tc := range []struct {
		layout string
		l      collectives.Layout
		size   int64
		want   string
	}{
		{"2 hosts of 1", layoutOf(false, "h0", "h1"), 8 << 20, "hostput"},
		{"2 hosts of 1", layoutOf(false, "h0", "h1"), portstaged.StreamedMax, "hostput"},
		{"2 hosts of 1", layoutOf(false, "h0", "h1"), portstaged.StreamedMax + 4, "portput"},
		{"4 hosts of 1", layoutOf(false, "a", "b", "c", "d"), 32 << 20, "hostput"},
		{"2 hosts of 2", layoutOf(false, "h0", "h0", "h1", "h1"), 8 << 20, "hier"},
	} {
		got, err := collectives.SelectIn("allgather", "auto", tc.size, tc.l, "float")
		if err != nil || len(got) != 1 || got[0].Name != tc.want {
			t.Errorf("SelectIn(allgather, auto, %d, %s) = %v, %v; want %s", tc.size, tc.layout, AlgNames(got), err, tc.want)
		}
	}
}
