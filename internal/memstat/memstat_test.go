package memstat

import "testing"

func TestParseRSS(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"Name:\tx\nVmRSS:\t   12345 kB\nVmData:\t1 kB\n", 12345 << 10, true},
		{"VmRSS:\t0 kB", 0, true},
		{"Name:\tx\n", 0, false},
		{"VmRSS:\tlots kB\n", 0, false},
		{"VmRSS:\t12 MB\n", 0, false},
	} {
		got, err := parseRSS(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseRSS(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestHostRSS(t *testing.T) {
	b := make([]byte, 32<<20)
	for i := range b {
		b[i] = 1
	}
	rss, err := HostRSS()
	if err != nil || rss < 32<<20 {
		t.Fatalf("HostRSS = %d, %v; want at least the 32 MiB just touched", rss, err)
	}
	_ = b[len(b)-1]
}
