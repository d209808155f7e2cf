package ibverbs

import (
	"strings"
	"testing"
)

// TestOpenFailsCleanly: where the library is missing, or present with no usable HCA (as
// on every machine this project reaches), Open returns a one-line error instead of
// failing the process.
func TestOpenFailsCleanly(t *testing.T) {
	cases := []struct {
		name string
		lib  Library
		want []string // any of these
	}{
		{"missing library", Library{Path: "libibverbs-does-not-exist.so.1"}, []string{"libibverbs is not installed"}},
		{"installed library", Library{}, []string{"libibverbs is not installed", "found no InfiniBand device", "no usable InfiniBand port"}},
	}
	for _, c := range cases {
		dev, err := c.lib.Open("")
		if err == nil {
			dev.Close()
			t.Skipf("%s: this machine has a usable HCA; the no-HCA path cannot be checked here", c.name)
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: error spans lines: %q", c.name, msg)
		}
		found := false
		for _, w := range c.want {
			found = found || strings.Contains(msg, w)
		}
		if !found {
			t.Errorf("%s: %q, want one of %q", c.name, msg, c.want)
		}
		t.Logf("%s: %v", c.name, err)
	}
}
