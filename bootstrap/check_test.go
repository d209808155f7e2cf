package bootstrap

import (
	"strings"
	"testing"
)

func TestCheckAddr(t *testing.T) {
	for _, ok := range []string{"", ":5000", "127.0.0.1:5000", "[::1]:1", "eth0:10.0.0.1:5000", "node1:5000"} {
		if err := CheckAddr(ok); err != nil {
			t.Errorf("CheckAddr(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"garbage", "1.2.3.4", "1.2.3.4:port", "1.2.3.4:99999", "a:b:c:d"} {
		if err := CheckAddr(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("CheckAddr(%q) = %v, want an error naming it", bad, err)
		}
	}
}

func TestCheckTimeoutEnv(t *testing.T) {
	for _, ok := range []string{"", "5s", "2.5"} {
		t.Setenv(TimeoutEnv, ok)
		if err := CheckTimeoutEnv(); err != nil {
			t.Errorf("%s=%q: %v", TimeoutEnv, ok, err)
		}
	}
	for _, bad := range []string{"abc", "-1", "NaN"} {
		t.Setenv(TimeoutEnv, bad)
		if err := CheckTimeoutEnv(); err == nil || !strings.Contains(err.Error(), TimeoutEnv) {
			t.Errorf("%s=%q: %v, want an error naming the variable", TimeoutEnv, bad, err)
		}
	}
}
