package bootstrap

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// logBuf collects Logf output so tests can check it.
type logBuf struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBuf) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// checkNoLeaks fails the test if bootstrap goroutines outlive it. Register
// it first so that it runs after the other cleanups.
func checkNoLeaks(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		deadline := time.Now().Add(3 * time.Second)
		for {
			n, stacks := bootstrapGoroutines()
			if n == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d bootstrap goroutines leaked:\n%s", n, stacks)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func bootstrapGoroutines() (int, string) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var leaked []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "bootstrap.(*TCPBootstrap).") || strings.Contains(g, "bootstrap.(*peerConn)") {
			leaked = append(leaked, g)
		}
	}
	return len(leaked), strings.Join(leaked, "\n\n")
}

// newJob starts an n-rank job in this process through CreateUniqueID and
// Initialize, and closes it when the test ends.
func newJob(t *testing.T, n int, timeout time.Duration, logs *logBuf) []*TCPBootstrap {
	t.Helper()
	opts := Options{Timeout: timeout, Logf: t.Logf}
	if logs != nil {
		opts.Logf = logs.logf
	}
	bs := make([]*TCPBootstrap, n)
	for r := range bs {
		b, err := New(r, n, opts)
		if err != nil {
			t.Fatal(err)
		}
		bs[r] = b
		t.Cleanup(func() { closeAll(t, b) })
	}
	id, err := bs[0].CreateUniqueID("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	errs := parallel(n, func(r int) error { return bs[r].Initialize(context.Background(), id) })
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return bs
}

// parallel runs f(0..n-1) concurrently and returns the errors.
func parallel(n int, f func(r int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := 0; r < n; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = f(r)
		}()
	}
	wg.Wait()
	return errs
}

// closeAll closes b and fails if Close hangs.
func closeAll(t *testing.T, bs ...*TCPBootstrap) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		for _, b := range bs {
			if err := b.Close(); err != nil {
				t.Errorf("close rank %d: %v", b.Rank(), err)
			}
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("Close hung")
	}
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func mustContain(t *testing.T, what string, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s %q does not contain %q", what, got, w)
		}
	}
}
