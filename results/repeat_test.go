package results

import (
	"bytes"
	"strings"
	"testing"
)

// TestRepeatColumn: with Header.RepeatCheck each row ends with its repeat verdict under a
// "repeat" heading, and -J keeps the verdict per result and the flag in "config"; without
// it the table is nccl-tests' own; with -I's columns too.
func TestRepeatColumn(t *testing.T) {
	for _, c := range []struct{ on, perIter bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		on := c.on
		r := sampleReport()
		r.RepeatCheck, r.PerIter = on, c.perIter
		if on {
			r.Rows[0].Repeat, r.Rows[1].Repeat = RepeatSame, RepeatDiffers
		}
		var text bytes.Buffer
		p := NewTextPrinter(&text)
		p.Header(r.Header)
		for _, row := range r.Rows {
			p.Row(row)
		}
		var rows, heads []string
		for _, line := range strings.Split(text.String(), "\n") {
			if strings.HasPrefix(line, "#       size") {
				heads = append(heads, line)
			} else if line != "" && !strings.HasPrefix(line, "#") {
				rows = append(rows, line)
			}
		}
		if len(heads) != 1 || len(rows) != 2 {
			t.Fatalf("repeat check %v: heads %q rows %q", on, heads, rows)
		}
		if got := strings.HasSuffix(heads[0], " repeat"); got != on {
			t.Errorf("repeat check %v: column header %q", on, heads[0])
		}
		for i, row := range rows {
			last := strings.Fields(row)[len(strings.Fields(row))-1]
			if want := r.Rows[i].Repeat; on && last != want || !on && (last == RepeatSame || last == RepeatDiffers) {
				t.Errorf("repeat check %v: row %q ends with %q", on, row, last)
			}
		}
		var js bytes.Buffer
		if err := WriteJSON(&js, r); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(js.String(), `"repeat_check"`); got != on {
			t.Errorf("repeat check %v: JSON has repeat_check %v:\n%s", on, got, js.String())
		}
		back, err := ReadJSON(&js)
		if err != nil {
			t.Fatal(err)
		}
		if back.RepeatCheck != on || back.Rows[0].Repeat != r.Rows[0].Repeat || back.Rows[1].Repeat != r.Rows[1].Repeat {
			t.Errorf("repeat check %v: read back %v, %q, %q", on, back.RepeatCheck, back.Rows[0].Repeat, back.Rows[1].Repeat)
		}
	}
}
