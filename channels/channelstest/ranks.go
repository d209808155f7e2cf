package channelstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/bootstrap/bootstraptest"
	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
)

// NewBoots starts n connected bootstraps in this process.
func NewBoots(t testing.TB, n int) []*bootstrap.TCPBootstrap {
	t.Helper()
	return bootstraptest.Loopback(t, n, 10*time.Second)
}

// OnRanks runs fn on n ranks concurrently and fails the test on any error, or when the
// ranks have not all returned within a minute.
func OnRanks(t testing.TB, n int, fn func(r int) error) {
	t.Helper()
	for r, err := range bounded.Ranks(t, n, time.Minute, fn) {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// ThreadsOn counts this process's threads whose CPU list is exactly cpus.
func ThreadsOn(t *testing.T, cpus affinity.Set) int {
	return ThreadsOnBut(t, cpus, "")
}

// ThreadsOnBut is threadsOn leaving out the thread whose id is skip.
func ThreadsOnBut(t *testing.T, cpus affinity.Set, skip string) int {
	t.Helper()
	tasks, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range tasks {
		if filepath.Base(filepath.Dir(p)) == skip {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the thread ended
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				if s, err := affinity.Parse(v); err == nil && s.String() == cpus.String() {
					n++
				}
			}
		}
	}
	return n
}
