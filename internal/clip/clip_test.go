package clip

import (
	"strings"
	"testing"
)

func TestClip(t *testing.T) {
	long := strings.Repeat("a", 100000)
	tests := []struct {
		in, str, quote string
	}{
		{"", "", `""`},
		{"node[1-2]", "node[1-2]", `"node[1-2]"`},
		{strings.Repeat("x", Max), strings.Repeat("x", Max), `"` + strings.Repeat("x", Max) + `"`},
		{long, strings.Repeat("a", Max) + "… (100000 bytes)", `"` + strings.Repeat("a", Max) + `"… (100000 bytes)`},
		// A cut inside a multi-byte character moves back to its start.
		{strings.Repeat("a", Max-1) + "é" + long, strings.Repeat("a", Max-1) + "… (100081 bytes)", `"` + strings.Repeat("a", Max-1) + `"… (100081 bytes)`},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.str {
			t.Errorf("String(%.20q...) = %q; want %q", tt.in, got, tt.str)
		}
		if got := Quote(tt.in); got != tt.quote {
			t.Errorf("Quote(%.20q...) = %q; want %q", tt.in, got, tt.quote)
		}
	}
}
