package channels

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
)

// threadsOn counts this process's threads whose CPU list is exactly cpus.
func threadsOn(t *testing.T, cpus affinity.Set) int {
	return threadsOnBut(t, cpus, "")
}

// threadsOnBut is threadsOn leaving out the thread whose id is skip.
func threadsOnBut(t *testing.T, cpus affinity.Set, skip string) int {
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

// TestEthernetThreadsPinned: with EthernetOptions.CPUs set, every sender and receiver
// runs on a thread pinned to those CPUs (2 data sockets per peer, a sender and a receiver
// each, and the control socket's receiver: 5 threads per rank, 10 in the process), data
// still moves, and the test's own thread keeps its binding.
func TestEthernetThreadsPinned(t *testing.T) {
	all, err := affinity.Current()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 2 {
		t.Skipf("needs two CPUs to tell a pinned thread from the others (this one may use %v)", all)
	}
	pin := affinity.Set{all[len(all)-1]}
	// A locked goroutine's thread ends with it, except the process's main thread, which Go
	// cannot end and parks for good, still pinned: earlier tests may have left it so.
	base := threadsOn(t, pin)
	bs := newBoots(t, 2)
	ranks := newStandins(t, bootsOf(bs), 1<<20, false, func(r int) MeshOptions {
		o := ethOpts(ModeEthernet, fmt.Sprintf("h%d", r))
		o.Ethernet.CPUs = pin
		return o
	})
	// The threads pin themselves as they start, which may be a little after setup returns.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		got := threadsOn(t, pin) - base
		if got == 10 {
			break
		}
		if got > 10 || time.Now().After(deadline) {
			t.Fatalf("%d threads pinned to %v, want 10 (2 ranks x (2 data sockets x sender and receiver + control receiver))", got, pin)
		}
	}
	for k, size := range []uint64{1, 300 << 10} {
		if err := exchange(ranks, func(r int) Bootstrap { return bs[r] }, k, size, 3, 5); err != nil {
			t.Fatal(err)
		}
	}
	if mine, err := affinity.Current(); err != nil || mine.String() != all.String() {
		t.Errorf("test thread's CPUs %v, %v; want %v", mine, err, all)
	}
}

func TestPinThreadEmptyKeepsBinding(t *testing.T) {
	before, err := affinity.Current()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		if err := pinThread(nil); err != nil {
			done <- err
			return
		}
		now, err := affinity.Current()
		if err == nil && now.String() != before.String() {
			err = fmt.Errorf("binding changed to %v", now)
		}
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestPinnedProxyThreadEnds: a proxy pinned to a CPU leaves no thread pinned there once it
// stops (an unlocked thread would go back to Go's pool, pinned, to run anything). The
// process's main thread is left out of the count: if the proxy ran there, Go parks it for
// good rather than end it, and it stays pinned but runs nothing.
func TestPinnedProxyThreadEnds(t *testing.T) {
	all, err := affinity.Current()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 2 {
		t.Skipf("needs two CPUs to tell a pinned thread from the others (this one may use %v)", all)
	}
	pin := affinity.Set{all[0]}
	main := strconv.Itoa(os.Getpid())
	p := NewProxyService(&fakeEngine{}, newHostFifo(t, 4).fifo, time.Second)
	p.Placement.CPUs = pin
	base, baseAll := threadsOnBut(t, pin, main), threadsOn(t, pin)
	p.Start()
	for deadline := time.Now().Add(5 * time.Second); threadsOn(t, pin) == baseAll; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no thread pinned to %v while the proxy runs", pin)
		}
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); threadsOnBut(t, pin, main) > base; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d threads still pinned to %v 5s after the proxy stopped", threadsOnBut(t, pin, main)-base, pin)
		}
	}
}
