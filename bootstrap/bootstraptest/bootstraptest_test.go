package bootstraptest

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// The ranks Loopback returns are one working job: an allgather over all of them returns
// every rank's contribution in rank order.
func TestLoopback(t *testing.T) {
	const n = 3
	bs := Loopback(t, n, 10*time.Second)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for r, b := range bs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if b.Rank() != r || b.NRanks() != n {
				errs[r] = fmt.Errorf("Rank %d NRanks %d", b.Rank(), b.NRanks())
				return
			}
			all, err := b.AllGather([]byte{byte(10 + r)})
			if err == nil && (len(all) != n || all[0][0] != 10 || all[n-1][0] != 10+n-1) {
				err = fmt.Errorf("allgather returned %v", all)
			}
			errs[r] = err
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}
