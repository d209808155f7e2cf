package ethernet

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// errGPU answers StreamIdle with err (busy): the stream a failed copy left behind.
type errGPU struct {
	device.GPU
	err   error
	polls int
}

func (g *errGPU) StreamIdle(device.Stream) (bool, error) {
	g.polls++
	return false, g.err
}

// TestDeviceQueueWait: a copy queue's Wait returns once the done word counts every
// operation queued, passes the stream's error on when the word never gets there, and gives
// up after its timeout with an error that says how far it got.
func TestDeviceQueueWait(t *testing.T) {
	broken := errors.New("stream broke")
	for _, c := range []struct {
		name    string
		done    uint64        // the done word at the start
		late    time.Duration // when the last operation's number is stored (0: never)
		err     error         // the stream's error
		timeout time.Duration
		want    string // "" : no error
	}{
		{"done at once", 3, 0, nil, time.Second, ""},
		{"done after naps", 2, 3 * time.Millisecond, nil, 10 * time.Second, ""},
		{"stream error", 2, 0, broken, 10 * time.Second, "stream broke"},
		{"never done", 2, 0, nil, 5 * time.Millisecond, "did not finish within 5ms (2 of 3 done)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &errGPU{err: c.err}
			word := c.done
			q := &deviceQueue{g: g, done: &word, issued: 3}
			// The clock starts before the timer: a test descheduled between the two
			// would otherwise see Wait return "early" by the time it lost.
			start := time.Now()
			if c.late > 0 {
				timer := time.AfterFunc(c.late, func() { atomic.StoreUint64(&word, 3) })
				defer timer.Stop()
			}
			err := q.Wait(c.timeout)
			took := time.Since(start)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("Wait = %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("Wait = %v, want an error with %q", err, c.want)
			case c.want == "" && took < c.late:
				t.Fatalf("Wait returned after %v, before the last number was stored at %v", took, c.late)
			case took > c.timeout+5*time.Second:
				t.Fatalf("Wait took %v with a %v timeout", took, c.timeout)
			}
		})
	}
}

// TestDeviceQueueCounts: every operation of a queue ends with the store of its number,
// after the operation itself (the stand-in runs a stream's work in order, copies late at
// random), so that a Wait that returns has every queued byte in place.
func TestDeviceQueueCounts(t *testing.T) {
	space := channelstest.NewMemSpace()
	g := channelstest.NewMemGPU(0, space)
	c := DeviceCopier(g)
	q, err := c.NewQueue()
	if err != nil {
		t.Fatal(err)
	}
	stage, err := c.AllocStage(64)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := g.Alloc(64)
	if err != nil {
		t.Fatal(err)
	}
	for i := range stage.Host {
		stage.Host[i] = byte(i + 1)
	}
	for round := 1; round <= 20; round++ {
		if err := q.ToDevice(dev, stage, 64); err != nil {
			t.Fatal(err)
		}
		if err := q.Store64(dev.Add(56), uint64(round)); err != nil {
			t.Fatal(err)
		}
		if err := q.ToHost(stage, dev, 64); err != nil {
			t.Fatal(err)
		}
		if err := q.Wait(10 * time.Second); err != nil {
			t.Fatal(err)
		}
		dq := q.(*deviceQueue)
		if got := atomic.LoadUint64(dq.done); got != uint64(3*round) || dq.issued != uint64(3*round) {
			t.Fatalf("round %d: done word %d, issued %d, want %d", round, got, dq.issued, 3*round)
		}
		if got := *g.Word(dev.Add(56)); got != uint64(round) {
			t.Fatalf("round %d: the stored word reads %d", round, got)
		}
		for i := 0; i < 56; i++ {
			if stage.Host[i] != byte(i+1) {
				t.Fatalf("round %d: byte %d of the copy back reads %d, want %d", round, i, stage.Host[i], i+1)
			}
		}
		if got := *(*uint64)(unsafe.Pointer(&stage.Host[56])); got != uint64(round) {
			t.Fatalf("round %d: the copy back carries %d, not the stored %d", round, got, round)
		}
		for i := 56; i < 64; i++ {
			stage.Host[i] = 0
		}
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.FreeStage(stage); err != nil {
		t.Fatal(err)
	}
	if err := g.Free(dev); err != nil {
		t.Fatal(err)
	}
	if l := g.Leaks(); l != "" {
		t.Fatalf("left behind: %s", l)
	}
}

// TestDeviceCopierSharesStreams: a copier's queues share CopyStreams streams, each made on
// first use and destroyed when its last queue closes; queues that share one still count
// and wait for their own operations.
func TestDeviceCopierSharesStreams(t *testing.T) {
	space := channelstest.NewMemSpace()
	g := &countingGPU{MemGPU: channelstest.NewMemGPU(0, space)}
	c := DeviceCopier(g)
	stage, err := c.AllocStage(64)
	if err != nil {
		t.Fatal(err)
	}
	const n = 3*CopyStreams + 1
	dev, err := g.Alloc(64 * n) // 64 bytes a queue: queues on different streams run at once
	if err != nil {
		t.Fatal(err)
	}
	var qs []CopyQueue
	streams := map[device.Stream]int{}
	for i := 0; i < n; i++ {
		q, err := c.NewQueue()
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
		streams[q.(*deviceQueue).s]++
	}
	if len(streams) != CopyStreams || g.made != CopyStreams {
		t.Fatalf("%d queues on %d streams (%d made), want %d", n, len(streams), g.made, CopyStreams)
	}
	for s, k := range streams {
		if k < n/CopyStreams {
			t.Errorf("stream %v carries %d of %d queues: not handed out in turn", s, k, n)
		}
	}
	for round := 1; round <= 5; round++ {
		for i, q := range qs {
			mine := dev.Add(uint64(64 * i))
			if err := q.ToDevice(mine, stage, 64); err != nil {
				t.Fatal(err)
			}
			if err := q.Store64(mine.Add(56), uint64(round*100+i)); err != nil {
				t.Fatal(err)
			}
		}
		for i, q := range qs {
			if err := q.Wait(10 * time.Second); err != nil {
				t.Fatalf("round %d: queue %d: %v", round, i, err)
			}
			if dq := q.(*deviceQueue); atomic.LoadUint64(dq.done) != uint64(2*round) {
				t.Fatalf("round %d: queue %d counts %d done, want %d", round, i, atomic.LoadUint64(dq.done), 2*round)
			}
			if got := *g.Word(dev.Add(uint64(64*i + 56))); got != uint64(round*100+i) {
				t.Fatalf("round %d: queue %d's stored word reads %d, want %d", round, i, got, round*100+i)
			}
		}
	}
	for i, q := range qs {
		if err := q.Close(); err != nil {
			t.Fatal(err)
		}
		if i < len(qs)-CopyStreams && g.destroyed != 0 {
			t.Fatalf("a stream was destroyed while %d queues still use the pool", len(qs)-i-1)
		}
	}
	if g.destroyed != CopyStreams {
		t.Fatalf("%d of %d streams destroyed once every queue closed", g.destroyed, CopyStreams)
	}
	// A queue made after every queue closed gets a fresh stream.
	q, err := c.NewQueue()
	if err != nil {
		t.Fatal(err)
	}
	if g.made != CopyStreams+1 {
		t.Fatalf("a queue after the pool emptied made %d streams in all, want %d", g.made, CopyStreams+1)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.FreeStage(stage); err != nil {
		t.Fatal(err)
	}
}

// countingGPU counts the streams made and destroyed.
type countingGPU struct {
	*channelstest.MemGPU
	made, destroyed int
}

func (g *countingGPU) NewStream() (device.Stream, error) {
	g.made++
	return g.MemGPU.NewStream()
}

func (g *countingGPU) DestroyStream(s device.Stream) error {
	g.destroyed++
	return g.MemGPU.DestroyStream(s)
}
