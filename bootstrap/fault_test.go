package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMissingRank: nranks=3 but only ranks 0 and 1 start. Rank 1 starts once the root is
// inside Initialize, so that its longer wait (the verdict's grace) ends after the root's
// even when the test's goroutines start late on a loaded machine.
func TestMissingRank(t *testing.T) {
	checkNoLeaks(t)
	const timeout = 2 * time.Second
	b0, _ := New(0, 3, Options{Timeout: timeout, Logf: t.Logf})
	b1, _ := New(1, 3, Options{Timeout: timeout, Logf: t.Logf})
	defer closeAll(t, b0, b1)
	id, err := b0.CreateUniqueID("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rootErr := make(chan error, 1)
	go func() { rootErr <- b0.Initialize(context.Background(), id) }()
	for {
		b0.mu.Lock()
		inside := b0.state != stateListening && b0.state != stateNew
		b0.mu.Unlock()
		if inside {
			break
		}
		time.Sleep(time.Millisecond)
	}
	rankErr := b1.Initialize(context.Background(), id)
	errs := []error{<-rootErr, rankErr}
	elapsed := time.Since(start)
	re := regexp.MustCompile(`^bootstrap: root 127\.0\.0\.1:\d+: ranks \[2\] did not connect within 2s$`)
	if errs[0] == nil || !re.MatchString(errs[0].Error()) || !errors.Is(errs[0], ErrTimeout) {
		t.Errorf("root: got %v, want match of %s", errs[0], re)
	}
	if errs[1] == nil {
		t.Error("rank 1: Initialize succeeded")
	} else {
		t.Logf("rank 1: %v", errs[1])
		mustContain(t, "rank 1 error", errs[1].Error(), "bootstrap: rank 1: initialize: rejected by root 127.0.0.1:", "ranks [2] did not connect within 2s")
	}
	if elapsed > 10*time.Second {
		t.Errorf("took %s", elapsed)
	}
}

// TestRootNeverComes: a rank whose root is not there gives up in time.
func TestRootNeverComes(t *testing.T) {
	checkNoLeaks(t)
	b, _ := New(1, 2, Options{Timeout: 500 * time.Millisecond})
	defer closeAll(t, b)
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	start := time.Now()
	err := b.InitializeAddr(context.Background(), addr, "")
	if err == nil {
		t.Fatal("succeeded")
	}
	mustContain(t, "error", err.Error(), "bootstrap: rank 1: initialize: connect to root "+addr, "timed out after 500ms", "connection refused")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestInitializeCanceled(t *testing.T) {
	checkNoLeaks(t)
	b, _ := New(0, 2, Options{Timeout: 20 * time.Second})
	defer closeAll(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := b.InitializeAddr(ctx, fmt.Sprintf("127.0.0.1:%d", freePort(t)), "")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	mustContain(t, "error", err.Error(), "ranks [1] had not connected")
}

// TestStrangersRefused: garbage, another job's secret, a wrong nranks and a
// duplicate rank all knock on the root; they are refused and logged, and
// the real job still completes.
func TestStrangersRefused(t *testing.T) {
	checkNoLeaks(t)
	logs := &logBuf{}
	opts := Options{Timeout: 5 * time.Second, Logf: logs.logf}
	const n = 3
	bs := make([]*TCPBootstrap, n)
	for r := range bs {
		bs[r], _ = New(r, n, opts)
	}
	defer closeAll(t, bs...)
	id, err := bs[0].CreateUniqueID("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rootAddr, _, _ := id.Decode()

	rootErr := make(chan error, 1)
	go func() { rootErr <- bs[0].Initialize(context.Background(), id) }()

	// Garbage.
	c, err := net.Dial("tcp", rootAddr.String())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("garbage connection got an answer")
	}
	c.Close()

	// Another job's ID (same root address, different secret).
	other, _ := newUniqueID(rootAddr, deriveSecret("another job"))
	intruder, _ := New(1, n, opts)
	err = intruder.Initialize(context.Background(), other)
	if err == nil || !strings.Contains(err.Error(), "wrong secret") {
		t.Errorf("intruder: %v", err)
	}
	intruder.Close()

	// Wrong nranks.
	wrongN, _ := New(1, n+1, opts)
	err = wrongN.Initialize(context.Background(), id)
	if err == nil || !strings.Contains(err.Error(), "nranks mismatch") {
		t.Errorf("wrong nranks: %v", err)
	}
	wrongN.Close()

	// Rank 1 joins; then a duplicate rank 1.
	r1Err := make(chan error, 1)
	go func() { r1Err <- bs[1].Initialize(context.Background(), id) }()
	deadline := time.Now().Add(5 * time.Second)
	for len(bs[0].missingRanks()) != 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	dup, _ := New(1, n, opts)
	err = dup.Initialize(context.Background(), id)
	if err == nil || !strings.Contains(err.Error(), "rank 1 already connected") {
		t.Errorf("duplicate rank: %v", err)
	}
	dup.Close()

	// The real rank 2 completes the job.
	if err := bs[2].Initialize(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if err := <-rootErr; err != nil {
		t.Fatal(err)
	}
	if err := <-r1Err; err != nil {
		t.Fatal(err)
	}
	errs := parallel(n, func(r int) error { return bs[r].Barrier() })
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	log := logs.String()
	t.Logf("root log:\n%s", log)
	mustContain(t, "log", log,
		"rank 0: refused connection from 127.0.0.1:", "bad frame magic",
		"wrong secret", "nranks", "rank 1 already connected")
}

// TestPortInUse: the root address is taken by someone else.
func TestPortInUse(t *testing.T) {
	checkNoLeaks(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()

	// A long timeout and a loose bound: reported at once means well before the timeout,
	// also on a loaded 2-core CI machine.
	b, _ := New(0, 2, Options{Timeout: 30 * time.Second})
	defer closeAll(t, b)
	start := time.Now()
	err = b.InitializeAddr(context.Background(), addr, "")
	if err == nil {
		t.Fatal("InitializeAddr on a busy port succeeded")
	}
	mustContain(t, "error", err.Error(), "root address "+addr+" is already in use")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("reported after %v, not at once (timeout 30s)", took)
	}

	b2, _ := New(0, 2, Options{Timeout: time.Second})
	defer closeAll(t, b2)
	_, err = b2.CreateUniqueID(addr)
	if err == nil {
		t.Fatal("CreateUniqueID on a busy port succeeded")
	}
	mustContain(t, "error", err.Error(), "root address "+addr+" is already in use")
}

func TestTimeoutEnv(t *testing.T) {
	for in, want := range map[string]time.Duration{"5s": 5 * time.Second, "5": 5 * time.Second, " 2.5 ": 2500 * time.Millisecond, "1m": time.Minute, "": defaultTimeout} {
		t.Setenv(TimeoutEnv, in)
		if got := DefaultTimeout(); got != want {
			t.Errorf("%q: got %s, want %s", in, got, want)
		}
		b, err := New(0, 1, Options{})
		if err != nil || b.timeout != want {
			t.Errorf("%q: New: %v", in, err)
		}
	}
	for _, in := range []string{"soon", "-5", "0", "0s", "NaN", "1e300", "5 s"} {
		t.Setenv(TimeoutEnv, in)
		if got := DefaultTimeout(); got != defaultTimeout {
			t.Errorf("%q: DefaultTimeout = %s", in, got)
		}
		if _, err := New(0, 1, Options{}); err == nil || !strings.Contains(err.Error(), TimeoutEnv) {
			t.Errorf("%q: New error %v", in, err)
		}
		if _, err := New(0, 1, Options{Timeout: time.Second}); err != nil {
			t.Errorf("%q: explicit timeout should win: %v", in, err)
		}
	}
}

func TestFromEnv(t *testing.T) {
	set := func(rank, nranks, root string) {
		for k, v := range map[string]string{EnvRank: rank, EnvNRanks: nranks, EnvRoot: root} {
			t.Setenv(k, v)
		}
	}
	set("", "", "")
	if _, _, _, ok, err := FromEnv(); ok || err != nil {
		t.Errorf("unset: ok=%v err=%v", ok, err)
	}
	set("2", "4", "eth0:10.0.0.1:5000")
	if r, n, root, ok, err := FromEnv(); !ok || err != nil || r != 2 || n != 4 || root != "eth0:10.0.0.1:5000" {
		t.Errorf("valid: %d %d %q %v %v", r, n, root, ok, err)
	}
	bad := []struct{ rank, nranks, root, want string }{
		{"1", "", "", "MSCCLPP_BENCH_NRANKS, MSCCLPP_BENCH_ROOT missing"},
		{"", "", "1.2.3.4:5", "MSCCLPP_BENCH_RANK, MSCCLPP_BENCH_NRANKS missing"},
		{"4", "4", "1.2.3.4:5", "MSCCLPP_BENCH_RANK"},
		{"-1", "4", "1.2.3.4:5", "MSCCLPP_BENCH_RANK"},
		{"x", "4", "1.2.3.4:5", "MSCCLPP_BENCH_RANK"},
		{"0", "0", "1.2.3.4:5", "MSCCLPP_BENCH_NRANKS"},
		{"0", "2", "1.2.3.4", "MSCCLPP_BENCH_ROOT"},
		{"0", "2", "1.2.3.4:0", "MSCCLPP_BENCH_ROOT"},
		{"0", "2", ":5000", "MSCCLPP_BENCH_ROOT"},
	}
	for _, c := range bad {
		set(c.rank, c.nranks, c.root)
		if _, _, _, ok, err := FromEnv(); ok || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: ok=%v err=%v", c, ok, err)
		}
	}
}
