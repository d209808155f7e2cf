package bootstrap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSendRecvTagsOutOfOrder: every rank sends every rank (itself included)
// two messages on each of five tags, tags interleaved in a scrambled order;
// receivers ask for the tags in another order and check per-tag FIFO.
func TestSendRecvTagsOutOfOrder(t *testing.T) {
	checkNoLeaks(t)
	const n = 6
	bs := newJob(t, n, 10*time.Second, nil)
	sendOrder := []int{5, 3, 1, 4, 2}
	recvOrder := []int{2, 5, 1, 3, 4}
	msg := func(from, to, tag, k int) []byte { return []byte(fmt.Sprintf("%d->%d tag %d #%d", from, to, tag, k)) }
	errs := parallel(n, func(r int) error {
		b := bs[r]
		for k := 0; k < 2; k++ {
			for _, tag := range sendOrder {
				for p := 0; p < n; p++ {
					if err := b.Send(p, tag, msg(r, p, tag, k)); err != nil {
						return err
					}
				}
			}
		}
		for p := n - 1; p >= 0; p-- {
			for _, tag := range recvOrder {
				for k := 0; k < 2; k++ {
					got, err := b.Recv(p, tag)
					if err != nil {
						return err
					}
					if want := msg(p, r, tag, k); !bytes.Equal(got, want) {
						return fmt.Errorf("rank %d got %q, want %q", r, got, want)
					}
				}
			}
		}
		return nil
	})
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// TestCollectives runs repeated barriers and allgathers of varying sizes
// for several job sizes, with user messages whose tags equal the
// collectives' sequence numbers in flight at the same time.
func TestCollectives(t *testing.T) {
	checkNoLeaks(t)
	for _, n := range []int{1, 2, 3, 5, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			bs := newJob(t, n, 10*time.Second, nil)
			errs := parallel(n, func(r int) error {
				b := bs[r]
				next, prev := (r+1)%n, (r-1+n)%n
				for iter := 1; iter <= 10; iter++ {
					// A user message on a tag equal to upcoming sequence numbers.
					if err := b.Send(next, iter, []byte{byte(iter)}); err != nil {
						return err
					}
					if err := b.Barrier(); err != nil {
						return err
					}
					mine := bytes.Repeat([]byte{byte(r)}, (r*7+iter)%50)
					all, err := b.AllGather(mine)
					if err != nil {
						return err
					}
					for i, got := range all {
						if want := bytes.Repeat([]byte{byte(i)}, (i*7+iter)%50); !bytes.Equal(got, want) {
							return fmt.Errorf("iter %d: slot %d = %v, want %v", iter, i, got, want)
						}
					}
					if err := b.Barrier(); err != nil {
						return err
					}
				}
				for iter := 1; iter <= 10; iter++ {
					got, err := b.Recv(prev, iter)
					if err != nil {
						return err
					}
					if len(got) != 1 || got[0] != byte(iter) {
						return fmt.Errorf("user tag %d: got %v", iter, got)
					}
				}
				return nil
			})
			for r, err := range errs {
				if err != nil {
					t.Errorf("rank %d: %v", r, err)
				}
			}
		})
	}
}

// TestBarrierActuallyWaits: no rank leaves a barrier before the last one
// enters it.
func TestBarrierActuallyWaits(t *testing.T) {
	checkNoLeaks(t)
	const n = 5
	bs := newJob(t, n, 10*time.Second, nil)
	var mu sync.Mutex
	entered := 0
	errs := parallel(n, func(r int) error {
		if r == n-1 {
			time.Sleep(200 * time.Millisecond)
		}
		mu.Lock()
		entered++
		mu.Unlock()
		if err := bs[r].Barrier(); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if entered != n {
			return fmt.Errorf("rank %d left the barrier with only %d ranks in", r, entered)
		}
		return nil
	})
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// TestConcurrentSenders: several goroutines per rank send to the same peers
// at once (including simultaneous first connections in both directions).
func TestConcurrentSenders(t *testing.T) {
	checkNoLeaks(t)
	const n, perTag, tags = 4, 50, 4
	bs := newJob(t, n, 10*time.Second, nil)
	errs := parallel(n*tags, func(i int) error {
		r, tag := i/tags, i%tags
		b := bs[r]
		for k := 0; k < perTag; k++ {
			for p := 0; p < n; p++ {
				if p == r {
					continue
				}
				if err := b.Send(p, tag, []byte(fmt.Sprint(k))); err != nil {
					return err
				}
			}
		}
		for p := 0; p < n; p++ {
			if p == r {
				continue
			}
			for k := 0; k < perTag; k++ {
				got, err := b.Recv(p, tag)
				if err != nil {
					return err
				}
				if string(got) != fmt.Sprint(k) {
					return fmt.Errorf("rank %d from %d tag %d: got %s want %d", r, p, tag, got, k)
				}
			}
		}
		return nil
	})
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestLargeMessage(t *testing.T) {
	checkNoLeaks(t)
	bs := newJob(t, 2, 10*time.Second, nil)
	big := make([]byte, 8<<20)
	for i := range big {
		big[i] = byte(rand.Uint32())
	}
	errs := parallel(2, func(r int) error {
		if err := bs[r].Send(1-r, 1, big); err != nil {
			return err
		}
		got, err := bs[r].Recv(1-r, 1)
		if err == nil && !bytes.Equal(got, big) {
			err = errors.New("corrupted")
		}
		return err
	})
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if err := bs[0].Send(1, 1, make([]byte, MaxMessageSize+1)); err == nil {
		t.Error("oversized Send accepted")
	}
}

func TestLocalRank(t *testing.T) {
	checkNoLeaks(t)
	bs := newJob(t, 4, 10*time.Second, nil)
	hosts := []string{"a", "b", "a", "b"}
	want := [][2]int{{0, 2}, {0, 2}, {1, 2}, {1, 2}}
	type res struct{ lr, ls int }
	got := make([]res, 4)
	errs := parallel(4, func(r int) error {
		var err error
		got[r].lr, got[r].ls, err = bs[r].LocalRank(hosts[r])
		return err
	})
	for r := range bs {
		if errs[r] != nil || got[r].lr != want[r][0] || got[r].ls != want[r][1] {
			t.Errorf("rank %d: got %v %v, want %v", r, got[r], errs[r], want[r])
		}
	}
	errs = parallel(4, func(r int) error {
		lr, ls, err := bs[r].LocalRank("")
		if err == nil && (lr != r || ls != 4) {
			err = fmt.Errorf("got %d of %d", lr, ls)
		}
		return err
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// TestInitializeAddr uses the address path, with an interface prefix.
func TestInitializeAddr(t *testing.T) {
	checkNoLeaks(t)
	const n = 4
	addr := fmt.Sprintf("lo:127.0.0.1:%d", freePort(t))
	bs := make([]*TCPBootstrap, n)
	for r := range bs {
		b, err := New(r, n, Options{Timeout: 10 * time.Second, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		bs[r] = b
	}
	defer closeAll(t, bs...)
	errs := parallel(n, func(r int) error {
		if err := bs[r].InitializeAddr(context.Background(), addr, "job-42"); err != nil {
			return err
		}
		all, err := bs[r].AllGather([]byte{byte(r)})
		if err != nil {
			return err
		}
		for i := range all {
			if len(all[i]) != 1 || all[i][0] != byte(i) {
				return fmt.Errorf("slot %d = %v", i, all[i])
			}
		}
		return bs[r].Barrier()
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

func TestRecvTimeoutNamesPeer(t *testing.T) {
	checkNoLeaks(t)
	bs := newJob(t, 2, time.Second, nil) // set-up, too, must finish within it
	start := time.Now()
	_, err := bs[0].Recv(1, 7)
	if err == nil || !errors.Is(err, ErrTimeout) {
		t.Fatalf("got %v, want timeout", err)
	}
	re := regexp.MustCompile(`^bootstrap: rank 0: recv from rank 1 \(127\.0\.0\.1:\d+\) tag 7: timed out after 1s$`)
	if !re.MatchString(err.Error()) {
		t.Errorf("error %q does not match %s", err, re)
	}
	if d := time.Since(start); d < 900*time.Millisecond || d > 10*time.Second {
		t.Errorf("timed out after %s", d)
	}
}

func TestPeerCloseFailsRecvPromptly(t *testing.T) {
	checkNoLeaks(t)
	bs := newJob(t, 3, 20*time.Second, nil)
	// Make sure rank 1 and 2 are connected, then close rank 2.
	if err := bs[2].Send(1, 1, []byte("last words")); err != nil {
		t.Fatal(err)
	}
	closeAll(t, bs[2])
	start := time.Now()
	got, err := bs[1].Recv(2, 1)
	if err != nil || string(got) != "last words" {
		t.Fatalf("buffered message lost: %q %v", got, err)
	}
	for _, r := range []int{0, 1} {
		_, err = bs[r].Recv(2, 1)
		if !errors.Is(err, ErrPeerClosed) {
			t.Errorf("rank %d: got %v, want ErrPeerClosed", r, err)
		} else {
			mustContain(t, "error", err.Error(), "recv from rank 2 (127.0.0.1:")
		}
		if err := bs[r].Send(2, 1, nil); !errors.Is(err, ErrPeerClosed) {
			t.Errorf("rank %d: send to closed peer: %v", r, err)
		}
	}
	if d := time.Since(start); d > 10*time.Second { // promptly: well inside the 20s timeout
		t.Errorf("took %s", d)
	}
}

func TestCloseUnblocksRecv(t *testing.T) {
	checkNoLeaks(t)
	bs := newJob(t, 2, 20*time.Second, nil)
	done := make(chan error, 1)
	go func() {
		_, err := bs[0].Recv(1, 5)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	closeAll(t, bs[0])
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("got %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Recv still blocked after Close")
	}
	if err := bs[0].Send(1, 1, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close: %v", err)
	}
	if err := bs[0].Barrier(); !errors.Is(err, ErrClosed) {
		t.Errorf("Barrier after Close: %v", err)
	}
	if err := bs[0].Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestAPIMisuse(t *testing.T) {
	checkNoLeaks(t)
	for _, c := range [][2]int{{0, 0}, {-1, 2}, {2, 2}, {0, MaxRanks + 1}} {
		if _, err := New(c[0], c[1], Options{}); err == nil {
			t.Errorf("New(%d, %d) accepted", c[0], c[1])
		}
	}
	if _, err := New(0, 1, Options{Timeout: -time.Second}); err == nil {
		t.Error("negative timeout accepted")
	}
	b1, _ := New(1, 2, Options{Timeout: time.Second})
	defer b1.Close()
	if _, err := b1.CreateUniqueID(""); err == nil {
		t.Error("rank 1 created an ID")
	}
	if err := b1.Send(0, 1, nil); err == nil || !strings.Contains(err.Error(), "not initialized") {
		t.Errorf("Send before Initialize: %v", err)
	}
	if _, err := b1.Recv(5, 1); err == nil || !strings.Contains(err.Error(), "no such rank") {
		t.Errorf("Recv from rank 5: %v", err)
	}
	if err := b1.Initialize(context.Background(), UniqueID{}); err == nil || !strings.Contains(err.Error(), "all zero") {
		t.Errorf("Initialize with zero ID: %v", err)
	}

	b0, _ := New(0, 1, Options{Timeout: time.Second})
	defer b0.Close()
	id, err := b0.CreateUniqueID("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b0.CreateUniqueID("127.0.0.1:0"); err == nil {
		t.Error("second CreateUniqueID accepted")
	}
	other, _ := newUniqueID(netip.MustParseAddrPort("127.0.0.1:1"), testSecret())
	if err := b0.Initialize(context.Background(), other); err == nil || !strings.Contains(err.Error(), "must use the unique ID it created") {
		t.Errorf("rank 0 with a foreign ID: %v", err)
	}
	_ = id

	// A single-rank job works without any peer.
	b, _ := New(0, 1, Options{Timeout: time.Second})
	defer b.Close()
	if err := b.InitializeAddr(context.Background(), fmt.Sprintf("127.0.0.1:%d", freePort(t)), ""); err != nil {
		t.Fatal(err)
	}
	if all, err := b.AllGather([]byte("x")); err != nil || len(all) != 1 || string(all[0]) != "x" {
		t.Errorf("allgather of 1: %v %v", all, err)
	}
	if err := b.Send(0, 3, []byte("me")); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Recv(0, 3); err != nil || string(got) != "me" {
		t.Errorf("self recv: %q %v", got, err)
	}
	if err := b.InitializeAddr(context.Background(), "127.0.0.1:1", ""); err == nil {
		t.Error("second Initialize accepted")
	}
}

// TestBarrierTimeoutNamesRankWaitedOn: with a rank that never arrives, every other rank's
// barrier times out naming the rank it was receiving from. On three ranks that is the
// absent one, whichever it is (on two, the rank sent to and the rank received from are the
// same, so only three or more tell them apart); on five, each names the absent rank or one
// that timed out itself, never itself, and one names the absent rank.
func TestBarrierTimeoutNamesRankWaitedOn(t *testing.T) {
	checkNoLeaks(t)
	named := regexp.MustCompile(`^bootstrap: rank (\d+): barrier #\d+ step \d+: recv from rank (\d+) \(127\.0\.0\.1:\d+\): timed out after 1s$`)
	for _, n := range []int{3, 5} {
		for absent := 0; absent < n; absent++ {
			t.Run(fmt.Sprintf("%d ranks, rank %d absent", n, absent), func(t *testing.T) {
				// 1s: a rank that is there but descheduled that long on a loaded
				// machine would be named instead of the absent one.
				bs := newJob(t, n, time.Second, nil)
				errs := parallel(n, func(r int) error {
					if r == absent {
						return nil
					}
					return bs[r].Barrier()
				})
				direct := false
				for r, err := range errs {
					if r == absent {
						continue
					}
					m := named.FindStringSubmatch(fmt.Sprint(err))
					if m == nil || m[1] != fmt.Sprint(r) {
						t.Errorf("rank %d: %v; want a timeout naming the rank waited on", r, err)
						continue
					}
					waited, _ := strconv.Atoi(m[2])
					switch {
					case n == 3 && waited != absent:
						t.Errorf("rank %d names rank %d; want rank %d, the absent one", r, waited, absent)
					case waited == r || waited != absent && errs[waited] == nil:
						t.Errorf("rank %d names rank %d, which is neither absent nor stuck", r, waited)
					}
					direct = direct || waited == absent
				}
				if !direct {
					t.Errorf("no rank names rank %d, the absent one: %v", absent, errs)
				}
			})
		}
	}
}
