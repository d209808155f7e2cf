package bytesize

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"8", 8},
		{"0", 0},
		{" 16 ", 16},
		{"64K", 64 << 10},
		{"64k", 64 << 10},
		{"1.5M", 3 << 19},
		{"32m", 32 << 20},
		{"256M", 256 << 20},
		{"2G", 2 << 30},
		{"1g", 1 << 30},
		{"64G", 64 << 30},
		{"4 K", 4 << 10},
		{"1.", 1},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", " ", "abc", "K", "-1", "-1K", "+1", "1e3", "1e30", "1.5", "0.1K", "1T", "1KB",
		"1,5M", ".5K", "NaN", "Inf", "+Inf", "0x10", "2000000G"} {
		if got, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %d, want an error", in, got)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0"}, {8, "8"}, {1000, "1000"}, {1 << 10, "1K"}, {1536, "1536"}, {3 << 19, "1536K"},
		{1 << 20, "1M"}, {256 << 20, "256M"}, {1 << 30, "1G"}, {3 << 30, "3G"},
	}
	for _, tt := range tests {
		if got := Format(tt.in); got != tt.want {
			t.Errorf("Format(%d) = %q, want %q", tt.in, got, tt.want)
		}
		if n, err := Parse(Format(tt.in)); err != nil || n != tt.in {
			t.Errorf("Parse(Format(%d)) = %d, %v", tt.in, n, err)
		}
	}
}
