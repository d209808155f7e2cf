package progress

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMeter(t *testing.T) {
	var buf bytes.Buffer
	m := &Meter{w: &buf, start: time.Unix(1000, 0)} // no redraw goroutine: the test ticks
	m.Update(3, 29, "allreduce float sum 1048576 B")
	m.since = m.start
	m.tick(m.start.Add(Delay / 2))
	if buf.Len() != 0 {
		t.Fatalf("a step younger than Delay drew %q", buf.String())
	}
	m.tick(m.start.Add(1500 * time.Millisecond))
	want := "\r[ 3/29] allreduce float sum 1048576 B  1.5 s\x1b[K"
	if got := buf.String(); got != want {
		t.Fatalf("tick wrote %q, want %q", got, want)
	}
	buf.Reset()
	m.Clear()
	if got := buf.String(); got != "\r\x1b[K" {
		t.Fatalf("Clear wrote %q", got)
	}
	buf.Reset()
	m.Clear() // nothing drawn: nothing to erase
	m.tick(m.start.Add(time.Hour))
	if buf.Len() != 0 {
		t.Fatalf("after Clear the meter wrote %q", buf.String())
	}
	m.Update(29, 29, "done")
	m.since = m.start
	m.tick(m.start.Add(2*time.Minute + time.Second))
	if want := "\r[29/29] done  2m01s\x1b[K"; buf.String() != want {
		t.Fatalf("tick wrote %q, want %q", buf.String(), want)
	}
}

func TestMeterRedraws(t *testing.T) {
	var buf syncBuffer
	m := New(&buf, true)
	m.Update(0, 1, "slow step")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(buf.String(), "slow step") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	m.Close()
	m.Close() // a second Close must not panic
	if !strings.Contains(buf.String(), "[0/1] slow step") || !strings.HasSuffix(buf.String(), "\r\x1b[K") {
		t.Fatalf("meter wrote %q, want the step's line, then an erase", buf.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestDisabledMeterIsSilent(t *testing.T) {
	var buf bytes.Buffer
	m := New(&buf, false)
	m.Update(1, 2, "x")
	m.Clear()
	m.Close()
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
