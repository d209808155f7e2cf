package channelstest

import (
	"bytes"
	"testing"
	"time"
)

func TestMemGPUStreamsAreOrderedAndLate(t *testing.T) {
	g := NewMemGPU(0, NewMemSpace())
	a, _ := g.Alloc(1 << 16)
	b, _ := g.Alloc(1 << 16)
	s, _ := g.NewStream()
	defer g.DestroyStream(s)
	src := g.Space.Bytes(a, 1<<16)
	for i := range src {
		src[i] = byte(i / 3)
	}
	for i := 0; i < 64; i++ {
		g.CopyAsync(b.Add(uint64(i)*1024), a.Add(uint64(i)*1024), 1024, s)
	}
	g.WriteValue64Async(b, 0xfeed, s)
	if err := g.Synchronize(s, time.Second); err != nil {
		t.Fatal(err)
	}
	if *g.Word(b) != 0xfeed || !bytes.Equal(g.Space.Bytes(b, 1<<16)[8:], src[8:]) {
		t.Fatal("stream ran out of order or not at all")
	}
}
