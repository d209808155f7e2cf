package channels

import (
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// hostFifo is FIFO memory in ordinary Go memory plus a producer that follows the device
// protocol of port_channel_device.cuh step by step.
type hostFifo struct {
	mem  []uint64 // slots, then the tail word
	head atomic.Uint64
	size uint64
	fifo *Fifo
}

func newHostFifo(t *testing.T, size int) *hostFifo {
	t.Helper()
	h := &hostFifo{mem: make([]uint64, size*2+1), size: uint64(size)}
	f, err := NewFifo(size, unsafe.Pointer(&h.mem[0]), &h.mem[size*2])
	if err != nil {
		t.Fatal(err)
	}
	h.fifo = f
	return h
}

// push is the device's Fifo::push: claim, wait for room, write fst then snd.
func (h *hostFifo) push(tr Trigger) uint64 {
	pos := h.head.Add(1) - 1
	for pos >= atomic.LoadUint64(&h.mem[h.size*2])+h.size {
		runtime.Gosched()
	}
	i := (pos & (h.size - 1)) * 2
	if atomic.LoadUint64(&h.mem[i+1]) != 0 {
		panic(fmt.Sprintf("producer would overwrite an unconsumed trigger at position %d", pos))
	}
	atomic.StoreUint64(&h.mem[i], tr.Fst)
	atomic.StoreUint64(&h.mem[i+1], tr.Snd)
	return pos
}

func TestFifoRejectsBadSize(t *testing.T) {
	var tail uint64
	for _, n := range []int{0, -4, 3, 100} {
		if _, err := NewFifo(n, nil, &tail); err == nil {
			t.Errorf("NewFifo(%d) succeeded", n)
		}
	}
}

func TestFifoOrderAndWrapAround(t *testing.T) {
	h := newHostFifo(t, 4)
	const n = 37 // many laps of a 4-slot FIFO
	go func() {
		for i := 0; i < n; i++ {
			h.push(MakeTrigger(TriggerData, uint32(i%7), uint64(i), uint64(2*i), uint64(i+1)))
		}
	}()
	for i := 0; i < n; {
		tr, ok := h.fifo.Poll()
		if !ok {
			runtime.Gosched()
			continue
		}
		if tr.Channel() != uint32(i%7) || tr.DstOffset() != uint64(i) || tr.SrcOffset() != uint64(2*i) || tr.Size() != uint64(i+1) {
			t.Fatalf("trigger %d = %v, out of order or corrupted", i, tr)
		}
		h.fifo.Pop()
		i++
	}
	if h.fifo.Tail() != n || h.mem[8] != n {
		t.Fatalf("tail = %d (published %d), want %d", h.fifo.Tail(), h.mem[8], n)
	}
	if _, ok := h.fifo.Poll(); ok {
		t.Fatal("a trigger appeared after the last one")
	}
}

func TestFifoFullBackPressure(t *testing.T) {
	h := newHostFifo(t, 4)
	for i := 0; i < 4; i++ {
		h.push(MakeTrigger(TriggerFlag, 1, 0, 0, 0))
	}
	fifth := make(chan uint64)
	go func() { fifth <- h.push(MakeTrigger(TriggerData, 2, 0, 0, 99)) }()
	select {
	case pos := <-fifth:
		t.Fatalf("push into a full FIFO returned (position %d) instead of waiting", pos)
	case <-time.After(50 * time.Millisecond):
	}
	// Consume one: the waiting producer may now write the freed slot.
	if _, ok := h.fifo.Poll(); !ok {
		t.Fatal("no trigger at the tail of a full FIFO")
	}
	h.fifo.Pop()
	select {
	case pos := <-fifth:
		if pos != 4 {
			t.Fatalf("fifth push got position %d, want 4", pos)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("producer still blocked after a slot was freed")
	}
	for i := 1; i <= 4; i++ {
		tr, ok := h.fifo.Poll()
		if !ok {
			t.Fatalf("trigger %d missing", i)
		}
		if i == 4 && tr.Size() != 99 {
			t.Fatalf("last trigger = %v, want the 99-byte put", tr)
		}
		h.fifo.Pop()
	}
}

func TestFifoManyProducers(t *testing.T) {
	h := newHostFifo(t, 8)
	const producers, each = 4, 500
	var wg sync.WaitGroup
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				h.push(MakeTrigger(TriggerData, uint32(p), uint64(i), 0, 1))
			}
		}(p)
	}
	next := make([]uint64, producers)
	for got := 0; got < producers*each; {
		tr, ok := h.fifo.Poll()
		if !ok {
			runtime.Gosched()
			continue
		}
		p := tr.Channel()
		if tr.DstOffset() != next[p] {
			t.Fatalf("producer %d: got item %d, want %d", p, tr.DstOffset(), next[p])
		}
		next[p]++
		h.fifo.Pop()
		got++
	}
	wg.Wait()
}

// fakeEngine records what the proxy asks of the copy engine.
type fakeEngine struct {
	mu    sync.Mutex
	ops   []string
	syncs int
	// running makes StreamIdle report streams busy.
	running bool
}

func (f *fakeEngine) Bind() error { return nil }
func (f *fakeEngine) CopyAsync(dst, src device.Ptr, n uint64, s device.Stream) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops = append(f.ops, fmt.Sprintf("copy %v<-%v %d s%d", dst, src, n, s))
	return nil
}
func (f *fakeEngine) WriteValue64Async(dst device.Ptr, v uint64, s device.Stream) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops = append(f.ops, fmt.Sprintf("write %v=%d s%d", dst, v, s))
	return nil
}
func (f *fakeEngine) StreamIdle(s device.Stream) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops = append(f.ops, fmt.Sprintf("query s%d", s))
	return !f.running, nil
}
func (f *fakeEngine) Synchronize(s device.Stream, _ time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops = append(f.ops, fmt.Sprintf("sync s%d", s))
	return nil
}

func TestProxyTranslatesTriggers(t *testing.T) {
	h := newHostFifo(t, 4)
	eng := &fakeEngine{}
	p := NewProxyService(eng, h.fifo, time.Second)
	conn := &cudaIPCConn{ce: eng, stream: 7, timeout: time.Second}
	id, err := p.AddChannel(&ProxyChannel{Peer: 1, Conn: conn, Dst: Region{Base: 0x1000, Size: 256}, Src: Region{Base: 0x2000, Size: 256}, Token: Region{Base: 0x3000, Size: 8}})
	if err != nil {
		t.Fatal(err)
	}
	p.Start()
	h.push(MakeTrigger(TriggerData, id, 16, 32, 64))
	h.push(MakeTrigger(TriggerFlag, id, 0, 0, 0))
	h.push(MakeTrigger(TriggerData|TriggerFlag|TriggerSync, id, 0, 0, 256))
	h.push(MakeTrigger(TriggerData, id, 200, 0, 64)) // overruns the destination
	h.push(MakeTrigger(TriggerFlag, 9, 0, 0, 0))     // unknown channel
	deadline := time.Now().Add(5 * time.Second)
	for p.Handled() < 5 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	err = p.Stop()
	want := []string{
		"copy 0x1010<-0x2020 64 s7",
		"write 0x3000=1 s7",
		"copy 0x1000<-0x2000 256 s7",
		"write 0x3000=2 s7",
		"sync s7",
	}
	if fmt.Sprint(eng.ops) != fmt.Sprint(want) {
		t.Fatalf("proxy did\n%v\nwant\n%v", eng.ops, want)
	}
	if err == nil {
		t.Fatal("proxy accepted a put that overruns the destination")
	}
	if p.Handled() != 5 {
		t.Fatalf("handled %d triggers, want 5 (bad ones are consumed too)", p.Handled())
	}
}

// TestPollWaitsForBothHalves: a slot whose second word is valid but whose first is not yet
// (a trigger that reached host memory in two pieces) is not taken.
func TestPollWaitsForBothHalves(t *testing.T) {
	h := newHostFifo(t, 4)
	tr := MakeTrigger(TriggerData|TriggerFlag, 2, 64, 128, 256<<20) // Fst without its valid bit would read as 0
	slot := h.fifo.slot(0)
	atomic.StoreUint64(&slot[1], tr.Snd)
	if got, ok := h.fifo.Poll(); ok {
		t.Fatalf("Poll took a half-written trigger %v", got)
	}
	atomic.StoreUint64(&slot[0], tr.Fst)
	got, ok := h.fifo.Poll()
	if !ok || got != tr {
		t.Fatalf("Poll = %v, %v; want %v", got, ok, tr)
	}
}

func TestTriggerRoundTrip(t *testing.T) {
	cases := []struct {
		typ, ch       uint32
		dst, src, len uint64
	}{
		{TriggerData, 0, 0, 0, 0},
		{TriggerFlag, 65535, mask36, mask36, MaxTriggerBytes},
		{TriggerData | TriggerFlag | TriggerSync, 12, 1 << 35, 1<<36 - 16, MaxTriggerBytes - 15},
		{TriggerSync, 3, 4096, 8192, 1 << 27},
		{TriggerData, 1, 0, 0, 256 << 20},
	}
	for _, c := range cases {
		tr := MakeTrigger(c.typ, c.ch, c.dst, c.src, c.len)
		if !tr.Valid() || tr.Type() != c.typ || tr.Channel() != c.ch || tr.DstOffset() != c.dst || tr.SrcOffset() != c.src || tr.Size() != c.len {
			t.Errorf("MakeTrigger%+v decoded as %v", c, tr)
		}
	}
}

// TestProxySignalsHostTokens checks when a signal is a CPU store into the host token and
// when it must stay a stream write (a copy in flight on the stream could otherwise land
// after the token says it has).
func TestProxySignalsHostTokens(t *testing.T) {
	var token uint64
	eng := &fakeEngine{}
	p := NewProxyService(eng, nil, time.Second)
	conn := &cudaIPCConn{ce: eng, stream: 3, timeout: time.Second}
	tok := Region{Base: 0x3000, Size: 8, Host: unsafe.Pointer(&token)}
	id, err := p.AddChannel(&ProxyChannel{Peer: 1, Conn: conn, Dst: Region{Base: 0x1000, Size: 256}, Src: Region{Base: 0x2000, Size: 256}, Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		trigger Trigger
		running bool
		ops     []string // copy-engine calls this trigger makes
		token   uint64   // host token afterwards
	}{
		{"idle stream: store", MakeTrigger(TriggerFlag, id, 0, 0, 0), false, nil, 1},
		{"put with signal: stream write", MakeTrigger(TriggerData|TriggerFlag, id, 0, 0, 64), false, []string{"copy 0x1000<-0x2000 64 s3", "write 0x3000=2 s3"}, 1},
		{"signal behind a running copy: stream write", MakeTrigger(TriggerFlag, id, 0, 0, 0), true, []string{"query s3", "write 0x3000=3 s3"}, 1},
		{"signal once the stream is idle: store", MakeTrigger(TriggerFlag, id, 0, 0, 0), false, []string{"query s3"}, 4},
		{"next signal needs no query", MakeTrigger(TriggerFlag, id, 0, 0, 0), false, nil, 5},
		{"put, flush, signal: store", MakeTrigger(TriggerData|TriggerSync, id, 0, 0, 64), false, []string{"copy 0x1000<-0x2000 64 s3", "sync s3"}, 5},
		{"after the flush", MakeTrigger(TriggerFlag, id, 0, 0, 0), true, nil, 6},
	}
	for _, st := range steps {
		eng.mu.Lock()
		eng.ops, eng.running = nil, st.running
		eng.mu.Unlock()
		if err := p.Handle(st.trigger); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if !reflect.DeepEqual(eng.ops, st.ops) {
			t.Errorf("%s: copy engine saw %q, want %q", st.name, eng.ops, st.ops)
		}
		if token != st.token {
			t.Errorf("%s: host token %d, want %d", st.name, token, st.token)
		}
	}
}
