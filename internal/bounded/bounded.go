// Package bounded runs test work that might block (a FIFO opened the blocking way, ranks
// waiting for each other) with a bound on how long the test waits for it: past the bound
// the test fails, naming what blocked, instead of hanging until the go test timeout.
package bounded

import (
	"sync"
	"testing"
	"time"
)

// Run calls f and fails the test if it has not returned within limit.
func Run(t testing.TB, limit time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("%s blocked for %s", what, limit)
	}
}

// Ranks calls f(r) for r in [0, n) at once, as the ranks of a job, waits for all of them
// (failing the test past limit) and returns their errors, indexed by rank.
func Ranks(t testing.TB, n int, limit time.Duration, f func(r int) error) []error {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := 0; r < n; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			errs[r] = f(r)
		}(r)
	}
	Run(t, limit, "the ranks", wg.Wait)
	return errs
}
