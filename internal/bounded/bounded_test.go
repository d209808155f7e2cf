package bounded

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a testing.TB that records a Fatalf instead of stopping the goroutine.
type recorder struct {
	testing.TB
	msg atomic.Value
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg.Store(format)
}

func TestRun(t *testing.T) {
	rec := &recorder{TB: t}
	Run(rec, 10*time.Second, "quick", func() {})
	if rec.msg.Load() != nil {
		t.Errorf("a quick call failed the test: %v", rec.msg.Load())
	}
	block := make(chan struct{})
	defer close(block)
	Run(rec, 20*time.Millisecond, "stuck", func() { <-block })
	if m, _ := rec.msg.Load().(string); !strings.Contains(m, "blocked") {
		t.Errorf("a blocked call did not fail the test: %q", m)
	}
}

func TestRanks(t *testing.T) {
	var calls atomic.Int32
	errs := Ranks(t, 3, 10*time.Second, func(r int) error {
		calls.Add(1)
		if r == 1 {
			return errors.New("rank 1 failed")
		}
		return nil
	})
	if calls.Load() != 3 || errs[0] != nil || errs[1] == nil || errs[2] != nil {
		t.Errorf("calls %d, errors %v", calls.Load(), errs)
	}
}
