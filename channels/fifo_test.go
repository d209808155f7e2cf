package channels_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
)

func TestFifoRejectsBadSize(t *testing.T) {
	var tail uint64
	for _, n := range []int{0, -4, 3, 100} {
		if _, err := channels.NewFifo(n, nil, &tail); err == nil {
			t.Errorf("NewFifo(%d) succeeded", n)
		}
	}
}

func TestFifoOrderAndWrapAround(t *testing.T) {
	h := channelstest.NewHostFifo(t, 4)
	const n = 37 // many laps of a 4-slot FIFO
	go func() {
		for i := 0; i < n; i++ {
			h.Push(channels.MakeTrigger(channels.TriggerData, uint32(i%7), uint64(i), uint64(2*i), uint64(i+1)))
		}
	}()
	for i := 0; i < n; {
		tr, ok := h.Fifo.Poll()
		if !ok {
			runtime.Gosched()
			continue
		}
		if tr.Channel() != uint32(i%7) || tr.DstOffset() != uint64(i) || tr.SrcOffset() != uint64(2*i) || tr.Size() != uint64(i+1) {
			t.Fatalf("trigger %d = %v, out of order or corrupted", i, tr)
		}
		h.Fifo.Pop()
		i++
	}
	if h.Fifo.Tail() != n || h.Mem[8] != n {
		t.Fatalf("tail = %d (published %d), want %d", h.Fifo.Tail(), h.Mem[8], n)
	}
	if _, ok := h.Fifo.Poll(); ok {
		t.Fatal("a trigger appeared after the last one")
	}
}

func TestFifoFullBackPressure(t *testing.T) {
	h := channelstest.NewHostFifo(t, 4)
	for i := 0; i < 4; i++ {
		h.Push(channels.MakeTrigger(channels.TriggerFlag, 1, 0, 0, 0))
	}
	fifth := make(chan uint64)
	go func() { fifth <- h.Push(channels.MakeTrigger(channels.TriggerData, 2, 0, 0, 99)) }()
	select {
	case pos := <-fifth:
		t.Fatalf("push into a full FIFO returned (position %d) instead of waiting", pos)
	case <-time.After(50 * time.Millisecond):
	}
	// Consume one: the waiting producer may now write the freed slot.
	if _, ok := h.Fifo.Poll(); !ok {
		t.Fatal("no trigger at the tail of a full FIFO")
	}
	h.Fifo.Pop()
	select {
	case pos := <-fifth:
		if pos != 4 {
			t.Fatalf("fifth push got position %d, want 4", pos)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("producer still blocked after a slot was freed")
	}
	for i := 1; i <= 4; i++ {
		tr, ok := h.Fifo.Poll()
		if !ok {
			t.Fatalf("trigger %d missing", i)
		}
		if i == 4 && tr.Size() != 99 {
			t.Fatalf("last trigger = %v, want the 99-byte put", tr)
		}
		h.Fifo.Pop()
	}
}

func TestFifoManyProducers(t *testing.T) {
	h := channelstest.NewHostFifo(t, 8)
	const producers, each = 4, 500
	var wg sync.WaitGroup
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				h.Push(channels.MakeTrigger(channels.TriggerData, uint32(p), uint64(i), 0, 1))
			}
		}(p)
	}
	next := make([]uint64, producers)
	for got := 0; got < producers*each; {
		tr, ok := h.Fifo.Poll()
		if !ok {
			runtime.Gosched()
			continue
		}
		p := tr.Channel()
		if tr.DstOffset() != next[p] {
			t.Fatalf("producer %d: got item %d, want %d", p, tr.DstOffset(), next[p])
		}
		next[p]++
		h.Fifo.Pop()
		got++
	}
	wg.Wait()
}

// TestPollWaitsForBothHalves: a slot whose second word is valid but whose first is not yet
// (a trigger that reached host memory in two pieces) is not taken.
func TestPollWaitsForBothHalves(t *testing.T) {
	h := channelstest.NewHostFifo(t, 4)
	tr := channels.MakeTrigger(channels.TriggerData|channels.TriggerFlag, 2, 64, 128, 256<<20) // Fst without its valid bit would read as 0
	slot := h.Fifo.Slot(0)
	atomic.StoreUint64(&slot[1], tr.Snd)
	if got, ok := h.Fifo.Poll(); ok {
		t.Fatalf("Poll took a half-written trigger %v", got)
	}
	atomic.StoreUint64(&slot[0], tr.Fst)
	got, ok := h.Fifo.Poll()
	if !ok || got != tr {
		t.Fatalf("Poll = %v, %v; want %v", got, ok, tr)
	}
}

func TestTriggerRoundTrip(t *testing.T) {
	cases := []struct {
		typ, ch       uint32
		dst, src, len uint64
	}{
		{channels.TriggerData, 0, 0, 0, 0},
		{channels.TriggerFlag, 65535, channels.Mask36, channels.Mask36, channels.MaxTriggerBytes},
		{channels.TriggerData | channels.TriggerFlag | channels.TriggerSync, 12, 1 << 35, 1<<36 - 16, channels.MaxTriggerBytes - 15},
		{channels.TriggerSync, 3, 4096, 8192, 1 << 27},
		{channels.TriggerData, 1, 0, 0, 256 << 20},
	}
	for _, c := range cases {
		tr := channels.MakeTrigger(c.typ, c.ch, c.dst, c.src, c.len)
		if !tr.Valid() || tr.Type() != c.typ || tr.Channel() != c.ch || tr.DstOffset() != c.dst || tr.SrcOffset() != c.src || tr.Size() != c.len {
			t.Errorf("MakeTrigger%+v decoded as %v", c, tr)
		}
	}
}
