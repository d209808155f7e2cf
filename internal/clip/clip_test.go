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

func TestMessage(t *testing.T) {
	long := strings.Repeat("x", 100000)
	keep := strings.Repeat("x", MessageMax-1)
	tests := []struct {
		in, want string
	}{
		{"short message", "short message"},
		{`RANK="` + long + `": want a number`, `RANK="` + keep + `"… (100002 bytes): want a number`},
		{"open /tmp/" + long + ": file name too long", "open /tmp/" + strings.Repeat("x", MessageMax-5) + "… (100005 bytes): file name too long"},
		{`a "short" quote, then ` + long, `a "short" quote, then ` + strings.Repeat("x", MessageMax) + "… (100000 bytes)"},
		// An escape is not cut in two, and an unterminated quote runs to the end.
		{`v="` + strings.Repeat(`\\`, 100) + `"`, `v="` + strings.Repeat(`\\`, 79) + `"… (202 bytes)`},
		{`v="` + long, `v="` + keep + `"… (100001 bytes)`},
		{strings.Repeat("a few words ", 50), strings.Repeat("a few words ", 50)},
	}
	for _, tt := range tests {
		if got := Message(tt.in); got != tt.want {
			t.Errorf("Message(%.40q...) = %.300q\nwant %.300q", tt.in, got, tt.want)
		}
	}
}

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"allreduce", "allreduce"},
		{"µs é 中 \uFFFD", "µs é 中 \uFFFD"},
		{"red\x1b[31m", `red\x1b[31m`},
		{"\x1b]0;title\x07", `\x1b]0;title\a`},
		{"a\nb\rc\td\x00", `a\nb\rc\td\x00`},
		{"bad\xff\xfe", `bad\xff\xfe`},
		{"c1\u0085 \u009b", `c1\u0085 \u009b`},
		{"\uFFFE\uFFFF", `\ufffe\uffff`},
		{"abc\u202Efed", `abc\u202efed`},
	}
	for _, tt := range tests {
		if got := Printable(tt.in); got != tt.want {
			t.Errorf("Printable(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
