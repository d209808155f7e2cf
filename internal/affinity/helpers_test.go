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
