package affinity

import "testing"

func TestHelpers(t *testing.T) {
	one := func(c int) Set { return Set{c} }
	tests := []struct {
		name  string
		ranks []Set
		index int
		host  Host
		want  string
	}{
		{"rank with several CPUs keeps its binding", []Set{{0, 1}, {2, 3}}, 0, Host{Allowed: mustParse(t, "0-15")}, "none"},
		{"free CPUs less the proxies'", []Set{one(0), one(1)}, 0, Host{Allowed: mustParse(t, "0-7")}, "4-7"},
		{"same pool for every rank", []Set{one(0), one(1)}, 1, Host{Allowed: mustParse(t, "0-7")}, "4-7"},
		{"near the GPU first", []Set{one(0), one(1)}, 0, Host{Allowed: mustParse(t, "0-15"), Near: mustParse(t, "8-11")}, "10-11"},
		{"near CPUs all taken by proxies: the far ones", []Set{one(0), one(1)}, 0, Host{Allowed: mustParse(t, "0-15"), Near: mustParse(t, "8-9")}, "2-7,10-15"},
		{"only the proxies' CPUs are free", []Set{one(0), one(1)}, 0, Host{Allowed: mustParse(t, "0-3")}, "2-3"},
		{"no free CPU", []Set{one(0), one(1)}, 0, Host{Allowed: mustParse(t, "0-1")}, "none"},
	}
	for _, tt := range tests {
		if got := Helpers(tt.ranks, tt.index, tt.host).String(); got != tt.want {
			t.Errorf("%s: Helpers = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func mustParse(t *testing.T, s string) Set {
	t.Helper()
	set, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func TestCanSpin(t *testing.T) {
	tests := []struct {
		name    string
		p       Placement
		helpers Set
		own     Set
		want    bool
	}{
		{"proxy shares the rank's CPU", Placement{Shared: true}, nil, Set{0}, false},
		{"shared, even with helper CPUs", Placement{Shared: true}, Set{4, 5}, Set{0}, false},
		{"helpers have CPUs of their own", Placement{CPUs: Set{2}}, Set{4, 5}, Set{0}, true},
		{"bound to 2 CPUs: main thread and proxy take them", Placement{}, nil, Set{0, 1}, false},
		{"bound to 3 CPUs", Placement{}, nil, Set{0, 1, 2}, false},
		{"bound to 4 CPUs", Placement{}, nil, Set{0, 1, 2, 3}, true},
		{"unbound on a large host", Placement{}, nil, Set{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, true},
	}
	for _, tt := range tests {
		if got := CanSpin(tt.p, tt.helpers, tt.own); got != tt.want {
			t.Errorf("%s: CanSpin = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestThreadCPUs(t *testing.T) {
	all16 := mustParse(t, "0-15")
	tests := []struct {
		name    string
		ranks   []Set
		helpers Set
		want    int
	}{
		{"a CPU a rank: the helpers' CPUs", []Set{{0}, {1}}, mustParse(t, "4-15"), 12},
		{"4 ranks bound to all 16: less main thread and proxy each", []Set{all16, all16, all16, all16}, nil, 8},
		{"2 ranks on 0-7 and 8-15", []Set{mustParse(t, "0-7"), mustParse(t, "8-15")}, nil, 12},
		{"no CPU left: at least 1", []Set{{0}, {1}}, nil, 1},
	}
	for _, tt := range tests {
		if got := ThreadCPUs(tt.ranks, tt.helpers); got != tt.want {
			t.Errorf("%s: ThreadCPUs = %d, want %d", tt.name, got, tt.want)
		}
	}
}
