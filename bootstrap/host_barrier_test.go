package bootstrap

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func newHostBarriers(t *testing.T, bs []*TCPBootstrap, hosts []string) []*HostBarrier {
	t.Helper()
	dir := t.TempDir()
	hb := make([]*HostBarrier, len(bs))
	errs := parallel(len(bs), func(r int) (err error) {
		hb[r], err = NewHostBarrier(bs[r], hosts[r], dir)
		return err
	})
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	t.Cleanup(func() {
		for _, h := range hb {
			h.Close()
		}
	})
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left in %s: %v", dir, left)
	}
	return hb
}

// Every rank leaves barrier k only after every rank has entered it, many times over.
func TestHostBarrierWaits(t *testing.T) {
	const n, rounds = 4, 2000
	bs := newJob(t, n, 10*time.Second, nil)
	hb := newHostBarriers(t, bs, []string{"h", "h", "h", "h"})
	var entered [rounds]atomic.Int32
	errs := parallel(n, func(r int) error {
		for k := 0; k < rounds; k++ {
			if r == k%n && k%100 == 0 {
				time.Sleep(time.Millisecond) // one rank late now and then
			}
			entered[k].Add(1)
			if err := hb[r].Wait(); err != nil {
				return err
			}
			if got := entered[k].Load(); got != n {
				return fmt.Errorf("rank %d left barrier %d with %d of %d ranks in", r, k, got, n)
			}
		}
		return nil
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Ranks on several hosts get no host barrier (callers keep the TCP one).
func TestHostBarrierSeveralHosts(t *testing.T) {
	bs := newJob(t, 3, 10*time.Second, nil)
	for r, h := range newHostBarriers(t, bs, []string{"a", "a", "b"}) {
		if h != nil {
			t.Errorf("rank %d got a host barrier across hosts", r)
		}
	}
}

// A rank that never arrives makes the others fail after the timeout, naming it.
func TestHostBarrierTimeoutNamesRank(t *testing.T) {
	bs := newJob(t, 3, 10*time.Second, nil)
	hb := newHostBarriers(t, bs, []string{"h", "h", "h"})
	for _, h := range hb {
		h.timeout = time.Second // ranks 0 and 1 may start that far apart on a loaded machine
	}
	errs := parallel(2, func(r int) error { return hb[r].Wait() })
	for r, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "ranks [2] did not arrive") {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}
