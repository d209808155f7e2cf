package cudaipc

import (
	"fmt"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
)

func TestProxyTranslatesTriggers(t *testing.T) {
	h := channelstest.NewHostFifo(t, 4)
	eng := &channelstest.FakeEngine{}
	p := channels.NewProxyService(eng, h.Fifo, time.Second)
	conn := &cudaIPCConn{ce: eng, stream: 7, timeout: time.Second}
	id, err := p.AddChannel(&channels.ProxyChannel{Peer: 1, Conn: conn, Dst: channels.Region{Base: 0x1000, Size: 256}, Src: channels.Region{Base: 0x2000, Size: 256}, Token: channels.Region{Base: 0x3000, Size: 8}})
	if err != nil {
		t.Fatal(err)
	}
	p.Start()
	h.Push(channels.MakeTrigger(channels.TriggerData, id, 16, 32, 64))
	h.Push(channels.MakeTrigger(channels.TriggerFlag, id, 0, 0, 0))
	h.Push(channels.MakeTrigger(channels.TriggerData|channels.TriggerFlag|channels.TriggerSync, id, 0, 0, 256))
	h.Push(channels.MakeTrigger(channels.TriggerData, id, 200, 0, 64)) // overruns the destination
	h.Push(channels.MakeTrigger(channels.TriggerFlag, 9, 0, 0, 0))     // unknown channel
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
	if fmt.Sprint(eng.Ops) != fmt.Sprint(want) {
		t.Fatalf("proxy did\n%v\nwant\n%v", eng.Ops, want)
	}
	if err == nil {
		t.Fatal("proxy accepted a put that overruns the destination")
	}
	if p.Handled() != 5 {
		t.Fatalf("handled %d triggers, want 5 (bad ones are consumed too)", p.Handled())
	}
}

// TestProxySignalsHostTokens checks when a signal is a CPU store into the host token and
// when it must stay a stream write (a copy in flight on the stream could otherwise land
// after the token says it has).
func TestProxySignalsHostTokens(t *testing.T) {
	var token uint64
	eng := &channelstest.FakeEngine{}
	p := channels.NewProxyService(eng, nil, time.Second)
	conn := &cudaIPCConn{ce: eng, stream: 3, timeout: time.Second}
	tok := channels.Region{Base: 0x3000, Size: 8, Host: unsafe.Pointer(&token)}
	id, err := p.AddChannel(&channels.ProxyChannel{Peer: 1, Conn: conn, Dst: channels.Region{Base: 0x1000, Size: 256}, Src: channels.Region{Base: 0x2000, Size: 256}, Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		trigger channels.Trigger
		running bool
		ops     []string // copy-engine calls this trigger makes
		token   uint64   // host token afterwards
	}{
		{"idle stream: store", channels.MakeTrigger(channels.TriggerFlag, id, 0, 0, 0), false, nil, 1},
		{"put with signal: stream write", channels.MakeTrigger(channels.TriggerData|channels.TriggerFlag, id, 0, 0, 64), false, []string{"copy 0x1000<-0x2000 64 s3", "write 0x3000=2 s3"}, 1},
		{"signal behind a running copy: stream write", channels.MakeTrigger(channels.TriggerFlag, id, 0, 0, 0), true, []string{"query s3", "write 0x3000=3 s3"}, 1},
		{"signal once the stream is idle: store", channels.MakeTrigger(channels.TriggerFlag, id, 0, 0, 0), false, []string{"query s3"}, 4},
		{"next signal needs no query", channels.MakeTrigger(channels.TriggerFlag, id, 0, 0, 0), false, nil, 5},
		{"put, flush, signal: store", channels.MakeTrigger(channels.TriggerData|channels.TriggerSync, id, 0, 0, 64), false, []string{"copy 0x1000<-0x2000 64 s3", "sync s3"}, 5},
		{"after the flush", channels.MakeTrigger(channels.TriggerFlag, id, 0, 0, 0), true, nil, 6},
	}
	for _, st := range steps {
		eng.Mu.Lock()
		eng.Ops, eng.Running = nil, st.running
		eng.Mu.Unlock()
		if err := p.Handle(st.trigger); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if !reflect.DeepEqual(eng.Ops, st.ops) {
			t.Errorf("%s: copy engine saw %q, want %q", st.name, eng.Ops, st.ops)
		}
		if token != st.token {
			t.Errorf("%s: host token %d, want %d", st.name, token, st.token)
		}
	}
}
