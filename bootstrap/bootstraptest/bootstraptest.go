// Package bootstraptest starts a job of in-process ranks on loopback, for the tests of the
// packages built on the bootstrap (channels, collectives, the worker's sweep).
package bootstraptest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
)

// Loopback returns n initialized ranks of one job on 127.0.0.1, each with the given
// timeout (which also bounds their start), closed when the test ends.
func Loopback(t testing.TB, n int, timeout time.Duration) []*bootstrap.TCPBootstrap {
	t.Helper()
	bs := make([]*bootstrap.TCPBootstrap, n)
	for r := range bs {
		b, err := bootstrap.New(r, n, bootstrap.Options{Timeout: timeout, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		bs[r] = b
		t.Cleanup(func() { _ = b.Close() })
	}
	id, err := bs[0].CreateUniqueID("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range bs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = bs[r].Initialize(context.Background(), id)
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return bs
}
