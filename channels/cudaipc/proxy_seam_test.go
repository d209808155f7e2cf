package cudaipc

import (
	"testing"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// nopEngine is a copy engine that does nothing, to measure the proxy's own cost.
type nopEngine struct{ idle bool }

func (nopEngine) Bind() error                                                   { return nil }
func (nopEngine) CopyAsync(device.Ptr, device.Ptr, uint64, device.Stream) error { return nil }
func (nopEngine) WriteValue64Async(device.Ptr, uint64, device.Stream) error     { return nil }
func (nopEngine) Synchronize(device.Stream, time.Duration) error                { return nil }
func (e nopEngine) StreamIdle(device.Stream) (bool, error)                      { return e.idle, nil }

// TestProxyHotPathAllocatesNothing: handing a trigger to a CUDA IPC connection allocates
// nothing, for every kind of trigger the kernels push.
func TestProxyHotPathAllocatesNothing(t *testing.T) {
	var token uint64
	p := channels.NewProxyService(nopEngine{idle: true}, nil, time.Second)
	conn := &cudaIPCConn{ce: nopEngine{idle: true}, stream: 1, timeout: time.Second}
	id, err := p.AddChannel(&channels.ProxyChannel{Peer: 1, Conn: conn, Dst: channels.Region{Base: 0x1000, Size: 1 << 20}, Src: channels.Region{Base: 0x2000, Size: 1 << 20},
		Token: channels.Region{Base: 0x3000, Size: 8, Host: unsafe.Pointer(&token)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []uint32{channels.TriggerData, channels.TriggerFlag, channels.TriggerData | channels.TriggerFlag, channels.TriggerSync, channels.TriggerData | channels.TriggerFlag | channels.TriggerSync} {
		tr := channels.MakeTrigger(typ, id, 64, 128, 4096)
		if n := testing.AllocsPerRun(1000, func() {
			if err := p.Handle(tr); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("trigger type %d: %v allocations per trigger, want 0", typ, n)
		}
	}
}

// BenchmarkProxyHandle is the proxy's cost per trigger on top of the copy engine's.
func BenchmarkProxyHandle(b *testing.B) {
	p := channels.NewProxyService(nopEngine{}, nil, time.Second)
	conn := &cudaIPCConn{ce: nopEngine{}, stream: 1, timeout: time.Second}
	id, _ := p.AddChannel(&channels.ProxyChannel{Peer: 1, Conn: conn, Dst: channels.Region{Base: 0x1000, Size: 1 << 20}, Src: channels.Region{Base: 0x2000, Size: 1 << 20}, Token: channels.Region{Base: 0x3000, Size: 8}})
	tr := channels.MakeTrigger(channels.TriggerData|channels.TriggerFlag, id, 64, 128, 4096)
	for b.Loop() {
		if err := p.Handle(tr); err != nil {
			b.Fatal(err)
		}
	}
}
