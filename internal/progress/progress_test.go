package progress

import (
	"bytes"
	"os"
	"testing"
	"time"
)

func TestMeter(t *testing.T) {
	var buf bytes.Buffer
	m := New(&buf, true)
	at := m.start
	m.now = func() time.Time { return at }
	at = at.Add(1500 * time.Millisecond)
	m.Update(3, 29, "allreduce float sum 1048576 B")
	want := "\r[ 3/29] allreduce float sum 1048576 B  1.5 s\x1b[K"
	if got := buf.String(); got != want {
		t.Fatalf("Update wrote %q, want %q", got, want)
	}
	buf.Reset()
	m.Clear()
	if got := buf.String(); got != "\r\x1b[K" {
		t.Fatalf("Clear wrote %q", got)
	}
	buf.Reset()
	m.Clear() // nothing drawn: nothing to erase
	if buf.Len() != 0 {
		t.Fatalf("second Clear wrote %q", buf.String())
	}
	at = at.Add(2 * time.Minute)
	m.Update(29, 29, "done")
	if want := "\r[29/29] done  2m01s\x1b[K"; buf.String() != want {
		t.Fatalf("Update wrote %q, want %q", buf.String(), want)
	}
}

func TestDisabledMeterIsSilent(t *testing.T) {
	var buf bytes.Buffer
	m := New(&buf, false)
	m.Update(1, 2, "x")
	m.Clear()
	if m != nil || buf.Len() != 0 {
		t.Fatalf("disabled meter wrote %q", buf.String())
	}
}

func TestEnabled(t *testing.T) {
	tests := []struct {
		mode    string
		want    bool
		wantErr bool
	}{
		{"on", true, false},
		{"off", false, false},
		{"sometimes", false, true},
	}
	for _, tt := range tests {
		got, err := Enabled(tt.mode)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("Enabled(%q) = %v, %v; want %v, error %v", tt.mode, got, err, tt.want, tt.wantErr)
		}
	}
	// Under go test stderr is whatever ran the tests; auto must agree with IsTerminal when
	// no MPI launcher is involved.
	t.Setenv("OMPI_COMM_WORLD_SIZE", "")
	t.Setenv("PMI_RANK", "")
	got, err := Enabled("auto")
	if err != nil || got != IsTerminal(int(os.Stderr.Fd())) {
		t.Fatalf("Enabled(auto) = %v, %v", got, err)
	}
}

func TestIsTerminalOnAPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if IsTerminal(int(w.Fd())) {
		t.Fatal("a pipe is not a terminal")
	}
}
