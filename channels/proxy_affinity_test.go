package channels_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
)

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
	p := channels.NewProxyService(&channelstest.FakeEngine{}, channelstest.NewHostFifo(t, 4).Fifo, time.Second)
	p.Placement.CPUs = pin
	base, baseAll := channelstest.ThreadsOnBut(t, pin, main), channelstest.ThreadsOn(t, pin)
	p.Start()
	for deadline := time.Now().Add(5 * time.Second); channelstest.ThreadsOn(t, pin) == baseAll; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no thread pinned to %v while the proxy runs", pin)
		}
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); channelstest.ThreadsOnBut(t, pin, main) > base; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d threads still pinned to %v 5s after the proxy stopped", channelstest.ThreadsOnBut(t, pin, main)-base, pin)
		}
	}
}
