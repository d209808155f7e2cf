package affinity

import (
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseAndString(t *testing.T) {
	for _, tc := range []struct {
		in, str string
		want    Set
	}{
		{"", "none", nil},
		{"0", "0", Set{0}},
		{"0-3,8,10-11\n", "0-3,8,10-11", Set{0, 1, 2, 3, 8, 10, 11}},
		{"5,1-2,2", "1-2,5", Set{1, 2, 5}},
	} {
		got, err := Parse(tc.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.in, err)
		}
		if !slices.Equal(got, tc.want) || got.String() != tc.str {
			t.Errorf("Parse(%q) = %v (%q), want %v (%q)", tc.in, got, got.String(), tc.want, tc.str)
		}
	}
	for _, bad := range []string{"a", "1-", "3-1", "-1", "1,,2", "0-999999999"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestSetOps(t *testing.T) {
	a, b := Set{0, 1, 2, 5}, Set{1, 5, 7}
	if got := Union(a, b); !slices.Equal(got, Set{0, 1, 2, 5, 7}) {
		t.Errorf("Union = %v", got)
	}
	if got := Intersect(a, b); !slices.Equal(got, Set{1, 5}) {
		t.Errorf("Intersect = %v", got)
	}
	if got := Minus(a, b); !slices.Equal(got, Set{0, 2}) {
		t.Errorf("Minus = %v", got)
	}
}

func TestPlan(t *testing.T) {
	all := Set{0, 1, 2, 3, 4, 5, 6, 7}
	for _, tc := range []struct {
		name   string
		ranks  []Set
		index  int
		host   Host
		want   Set
		shared bool
	}{
		// mpirun --bind-to none: every rank may use every CPU; nothing to do.
		{"unbound", []Set{all, all}, 1, Host{Allowed: all}, nil, false},
		// --bind-to socket or numa: wide masks stay.
		{"bound to a socket", []Set{{0, 1, 2, 3}, {0, 1, 2, 3}}, 0, Host{Allowed: all}, nil, false},
		// OpenMPI's default for 2 ranks: one core each; proxies take the first free CPUs.
		{"core, rank 0", []Set{{0}, {1}}, 0, Host{Allowed: all}, Set{2}, false},
		{"core, rank 1", []Set{{0}, {1}}, 1, Host{Allowed: all}, Set{3}, false},
		// CPUs near the GPU first.
		{"near the GPU", []Set{{0}, {1}}, 1, Host{Allowed: all, Near: Set{4, 5, 6, 7}}, Set{5}, false},
		// Near CPUs all taken: any free one.
		{"near all bound", []Set{{4}, {5}}, 0, Host{Allowed: Set{0, 4, 5}, Near: Set{4, 5}}, Set{0}, false},
		// More ranks than free CPUs: proxies wrap around the free ones.
		{"wraps", []Set{{0}, {1}, {2}}, 2, Host{Allowed: Set{0, 1, 2, 3, 4}}, Set{3}, false},
		// Every CPU bound (one rank per core, or a cgroup of just the bound cores).
		{"none free", []Set{{0}, {1}}, 0, Host{Allowed: Set{0, 1}}, nil, true},
		// A cgroup that hides the other CPUs.
		{"cgroup", []Set{{2}, {3}}, 1, Host{Allowed: Set{2, 3}}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Plan(tc.ranks, tc.index, tc.host)
			if !slices.Equal(p.CPUs, tc.want) || p.Shared != tc.shared || p.Reason == "" {
				t.Errorf("Plan = %+v, want CPUs %v shared %v", p, tc.want, tc.shared)
			}
		})
	}
}

func TestCurrentAndPin(t *testing.T) {
	cur, err := Current()
	if err != nil || len(cur) == 0 {
		t.Fatalf("Current = %v, %v", cur, err)
	}
	if err := Pin(nil); err == nil {
		t.Error("Pin(nil) accepted")
	}
	h := ReadHost("")
	if len(h.Allowed) == 0 {
		t.Error("ReadHost found no allowed CPU")
	}
}

// TestWidenOthers: of three threads bound to one CPU each, widening those bound to the
// first CPU widens the other thread on it, not the caller (also on it), nor the thread
// on the second CPU.
func TestWidenOthers(t *testing.T) {
	all, err := Current()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 2 {
		t.Skipf("needs 2 CPUs, this thread may use %v", all)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer func() {
		if err := Pin(all); err != nil {
			t.Fatal(err)
		}
	}()
	release := make(chan struct{})
	defer close(release)
	pinned := func(s Set) int { // a thread of its own, pinned to s, until release
		tids := make(chan int)
		go func() {
			runtime.LockOSThread() // the thread ends with the goroutine
			if err := Pin(s); err != nil {
				t.Error(err)
			}
			tids <- unix.Gettid()
			<-release
		}()
		return <-tids
	}
	first, second := Set{all[0]}, Set{all[1]}
	same, elsewhere := pinned(first), pinned(second)
	if err := Pin(first); err != nil {
		t.Fatal(err)
	}
	n, err := WidenOthers(first, all)
	if err != nil || n < 1 {
		t.Fatalf("WidenOthers(%v, %v) = %d, %v; want at least 1 thread", first, all, n, err)
	}
	for _, tc := range []struct {
		name string
		tid  int
		want Set
	}{
		{"the other thread on the first CPU", same, all},
		{"the thread on the second CPU", elsewhere, second},
		{"the caller", unix.Gettid(), first},
	} {
		var m unix.CPUSet
		if err := unix.SchedGetaffinity(tc.tid, &m); err != nil {
			t.Fatal(err)
		}
		for _, c := range all {
			if m.IsSet(c) != tc.want.Contains(c) {
				t.Errorf("%s: CPU %d allowed %v, want %v (want CPUs %v)", tc.name, c, m.IsSet(c), tc.want.Contains(c), tc.want)
			}
		}
	}
	if _, err := WidenOthers(first, nil); err == nil {
		t.Error("WidenOthers to no CPU accepted")
	}
}
