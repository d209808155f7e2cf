package acceptance

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
)

// flakyGPU is the stand-in GPU with faults: it flips a byte of every copy into host
// memory, or fails to allocate pinned memory.
type flakyGPU struct {
	*devicetest.GPU
	flip    bool
	noPin   bool
	toHost  map[device.Ptr]bool
	flipped int
}

func (g *flakyGPU) AllocMapped(n uint64) (unsafe.Pointer, device.Ptr, error) {
	if g.noPin {
		return nil, 0, errors.New("cuMemHostAlloc: out of memory")
	}
	h, p, err := g.GPU.AllocMapped(n)
	g.toHost[p] = true
	return h, p, err
}

func (g *flakyGPU) CopyAsync(dst, src device.Ptr, n uint64, s device.Stream) error {
	if err := g.GPU.CopyAsync(dst, src, n, s); err != nil {
		return err
	}
	if g.flip && g.toHost[dst] {
		b, err := g.Space().Bytes(dst.Add(n/2), 1)
		if err != nil {
			return err
		}
		b[0] ^= 0x40
		g.flipped++
	}
	return nil
}

// TestMeasureCopies runs the one-rank copies on the stand-in GPU (host memory, real
// copies, events timed by the host clock): the three bandwidths are measured and every
// byte verified; a corrupted copy and a failed allocation are reported, not passed.
func TestMeasureCopies(t *testing.T) {
	o := CopyOptions{Bytes: 1<<20 + 3, Iters: 3, Warmup: 1, Timeout: time.Second}
	space := devicetest.NewSpace(nil)

	g := &flakyGPU{GPU: space.NewGPU(0), toHost: map[device.Ptr]bool{}}
	f := MeasureCopies(g, 1, o)
	if f.Err != "" || f.Wrong != 0 || f.Bytes != o.Bytes || !(f.HostToDeviceGBs > 0 && f.DeviceToHostGBs > 0 && f.DeviceCopyGBs > 0) {
		t.Errorf("copies on a sound GPU: %+v", f)
	}

	g.flip = true
	f = MeasureCopies(g, 1, o)
	if f.Err != "" || f.Wrong != 1 || g.flipped == 0 {
		t.Errorf("a flipped byte: %+v (flipped %d times), want 1 byte wrong", f, g.flipped)
	}
	checks := copyChecks(GenericSpec(), f)
	if last := checks[len(checks)-1]; last.Name != CheckVerification || last.Pass || last.Detail != "1 byte wrong" {
		t.Errorf("verification check %+v, want a failure of 1 byte", last)
	}

	g.flip, g.noPin = false, true
	f = MeasureCopies(g, 1, o)
	if !strings.Contains(f.Err, "pinned host buffer: cuMemHostAlloc: out of memory") {
		t.Errorf("failed allocation: %+v", f)
	}

	for _, bad := range []CopyOptions{{Bytes: 0, Iters: 1, Timeout: time.Second}, {Bytes: 8, Iters: 0, Timeout: time.Second}, {Bytes: 8, Iters: 1}} {
		if f := MeasureCopies(space.NewGPU(1), 1, bad); f.Err == "" {
			t.Errorf("options %+v: no error", bad)
		}
	}
}
