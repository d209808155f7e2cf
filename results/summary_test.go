package results

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// summaryCells parses the data lines of a WriteBestSummary table into
// trimmed cells, keyed by the size column.
func summaryCells(t *testing.T, out string) map[string][]string {
	t.Helper()
	cells := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		parts := strings.Split(strings.Trim(line, "|"), "|")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		if len(parts) != 8 {
			t.Fatalf("want 8 columns, got %d in %q", len(parts), line)
		}
		if parts[0] == "size (B)" {
			continue
		}
		cells[parts[0]+"/"+parts[1]+"/"+parts[2]] = parts
	}
	return cells
}

func TestWriteBestSummary(t *testing.T) {
	oop := func(us, bus float64) *Placement { return &Placement{TimeUs: us, BusBw: bus} }
	rows := []Row{
		{Size: 1024, Type: "float", Op: "sum", Algorithm: "ring", OutOfPlace: oop(20, 0.1)},
		{Size: 1024, Type: "float", Op: "sum", Algorithm: "packet", OutOfPlace: oop(8, 0.25)},
		{Size: 1024, Type: "float", Op: "sum", Algorithm: "allpair", OutOfPlace: oop(10, 0.2)},
		{Size: 1048576, Type: "float", Op: "sum", Algorithm: "ring", OutOfPlace: oop(100, 20.97)},
		{Size: 1048576, Type: "float", Op: "sum", Algorithm: "packet", OutOfPlace: oop(150, 13.98)},
		{Size: 1048576, Type: "float", Op: "sum", Algorithm: "packet", OutOfPlace: oop(90.5, 23.17)}, // faster repeat wins
		{Size: 1048576, Type: "float", Op: "sum", Algorithm: "allpair", OutOfPlace: oop(120, 17.48)},
		{Size: 1048576, Type: "half", Op: "sum", Algorithm: "ring", OutOfPlace: oop(50, 41.94)},
		{Size: 2048, Type: "float", Op: "max", InPlace: &Placement{TimeUs: 12, BusBw: 0.17}}, // in-place only, no algorithm
		{Size: 4096, Type: "float", Op: "sum", Algorithm: "ghost"},                           // no results: skipped
	}
	var buf bytes.Buffer
	if err := WriteBestSummary(&buf, rows); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	cells := summaryCells(t, out)
	tests := []struct {
		key, best, time, bus, second, slower string
	}{
		{"1024/float/sum", "packet", "8.00", "0.25", "allpair", "25.0"},
		{"1048576/float/sum", "packet", "90.50", "23.17", "ring", "10.5"},
		{"1048576/half/sum", "ring", "50.00", "41.94", "-", "-"},
		{"2048/float/max", "default", "12.00", "0.17", "-", "-"},
	}
	if len(cells) != len(tests) {
		t.Errorf("got %d summary lines, want %d:\n%s", len(cells), len(tests), out)
	}
	for _, tt := range tests {
		c, ok := cells[tt.key]
		if !ok {
			t.Errorf("no line for %s:\n%s", tt.key, out)
			continue
		}
		got := [5]string{c[3], c[4], c[5], c[6], c[7]}
		want := [5]string{tt.best, tt.time, tt.bus, tt.second, tt.slower}
		if got != want {
			t.Errorf("%s: got %v, want %v", tt.key, got, want)
		}
	}
	// Losers never appear in the winner column.
	losers := map[string][]string{"1024/float/sum": {"ring", "allpair"}, "1048576/float/sum": {"ring", "allpair"}}
	for key, names := range losers {
		for _, n := range names {
			if cells[key][3] == n {
				t.Errorf("%s: loser %s in winner column", key, n)
			}
		}
	}
	if strings.Contains(out, "ghost") {
		t.Errorf("row without results should be skipped:\n%s", out)
	}
	// Order of first appearance.
	if i, j := strings.Index(out, " 1024 |"), strings.Index(out, " 2048 |"); i < 0 || j < 0 || i > j {
		t.Errorf("lines out of order:\n%s", out)
	}
}

func TestWriteBestSummaryWriteError(t *testing.T) {
	rows := []Row{{Size: 8, Type: "float", Op: "sum", OutOfPlace: &Placement{TimeUs: 1}}}
	err := WriteBestSummary(&failWriter{}, rows)
	if err == nil || !strings.Contains(err.Error(), "results: best summary") || errors.Unwrap(err) == nil {
		t.Errorf("WriteBestSummary error = %v, want a wrapped write error", err)
	}
}

func TestCommentWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"lines", []string{"a\nb\n"}, "# a\n# b\n"},
		{"split writes", []string{"+--", "-+\n|", " x |\n"}, "# +---+\n# | x |\n"},
		{"empty line", []string{"a\n\nb"}, "# a\n#\n# b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewCommentWriter(&buf)
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); err != nil || n != len(s) {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
			}
			if buf.String() != tt.want {
				t.Errorf("got %q, want %q", buf.String(), tt.want)
			}
		})
	}
}
