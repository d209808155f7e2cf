package ethernet

import (
	"fmt"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
)

// TestEthernetThreadsPinned: with Options.CPUs set, every sender and receiver
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
	base := channelstest.ThreadsOn(t, pin)
	bs := channelstest.NewBoots(t, 2)
	ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 1<<20, false, func(r int) channels.MeshOptions {
		o := ethOpts(Mode, fmt.Sprintf("h%d", r))
		setEth(&o, func(e *Options) { e.CPUs, e.Spin = pin, 50*time.Microsecond })
		return o
	})
	// The threads pin themselves as they start, which may be a little after setup returns.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		got := channelstest.ThreadsOn(t, pin) - base
		if got == 12 {
			break
		}
		if got > 12 || time.Now().After(deadline) {
			t.Fatalf("%d threads pinned to %v, want 12 (2 ranks x (2 data sockets x sender and receiver + control sender and receiver: spin on))", got, pin)
		}
	}
	for k, size := range []uint64{1, 300 << 10} {
		if err := channelstest.Exchange(ranks, func(r int) channels.Bootstrap { return bs[r] }, k, size, 3, 5); err != nil {
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
