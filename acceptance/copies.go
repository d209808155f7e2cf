package acceptance

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// CopyOptions are the settings of MeasureCopies.
type CopyOptions struct {
	Bytes   int64         // size of each copy
	Iters   int           // timed copies of each kind
	Warmup  int           // untimed copies of each kind before them
	Timeout time.Duration // bounds each wait for the stream
}

// MeasureCopies measures a one-rank job's copies on stream s of g, as nvbandwidth's
// host_to_device_memcpy_ce, device_to_host_memcpy_ce and device_local_copy do: copies
// through the copy engines (cuMemcpyAsync) from pinned host memory to the GPU, from the
// GPU to pinned host memory, and between two buffers of the GPU's memory, each timed with
// events around Iters back-to-back copies; bandwidth is bytes copied a second. Then a
// pattern goes through all three (host → GPU → GPU → host) and every byte that comes back
// different is counted in Wrong. A failure is returned in Err, with the figures measured
// before it.
func MeasureCopies(g device.GPU, s device.Stream, o CopyOptions) CopyFigures {
	f := CopyFigures{Bytes: o.Bytes}
	if err := measureCopies(g, s, o, &f); err != nil {
		f.Err = err.Error()
	}
	return f
}

func measureCopies(g device.GPU, s device.Stream, o CopyOptions, f *CopyFigures) (err error) {
	if o.Bytes <= 0 || o.Iters <= 0 || o.Warmup < 0 || o.Timeout <= 0 {
		return fmt.Errorf("copies: %d bytes, %d iterations, %d warm-up, timeout %v", o.Bytes, o.Iters, o.Warmup, o.Timeout)
	}
	n := uint64(o.Bytes)
	keep := func(e error) {
		if e != nil && err == nil {
			err = e
		}
	}
	src, srcDev, e := g.AllocMapped(n)
	if e != nil {
		return fmt.Errorf("copies: pinned host buffer: %w", e)
	}
	defer func() { keep(g.FreeMapped(src)) }()
	dst, dstDev, e := g.AllocMapped(n)
	if e != nil {
		return fmt.Errorf("copies: pinned host buffer: %w", e)
	}
	defer func() { keep(g.FreeMapped(dst)) }()
	a, e := g.Alloc(n)
	if e != nil {
		return fmt.Errorf("copies: device buffer: %w", e)
	}
	defer func() { keep(g.Free(a)) }()
	b, e := g.Alloc(n)
	if e != nil {
		return fmt.Errorf("copies: device buffer: %w", e)
	}
	defer func() { keep(g.Free(b)) }()
	start, e := g.NewEvent()
	if e != nil {
		return e
	}
	defer func() { keep(g.DestroyEvent(start)) }()
	end, e := g.NewEvent()
	if e != nil {
		return e
	}
	defer func() { keep(g.DestroyEvent(end)) }()

	pattern := unsafe.Slice((*byte)(src), n)
	for i := range pattern {
		pattern[i] = copyPattern(i)
	}
	for _, c := range []struct {
		name     string
		to, from device.Ptr
		out      *float64
	}{
		{"host to device", a, srcDev, &f.HostToDeviceGBs},
		{"device to host", dstDev, a, &f.DeviceToHostGBs},
		{"device to device", b, a, &f.DeviceCopyGBs},
	} {
		gbs, e := timeCopies(g, s, c.to, c.from, n, o, start, end)
		if e != nil {
			return fmt.Errorf("copies: %s: %w", c.name, e)
		}
		*c.out = gbs
	}

	// Verify: clear everything the pattern goes through, then host → a → b → host.
	out := unsafe.Slice((*byte)(dst), n)
	clear(out)
	for _, step := range []func() error{
		func() error { return g.MemsetAsync(a, 0, n, s) },
		func() error { return g.MemsetAsync(b, 0, n, s) },
		func() error { return g.CopyAsync(a, srcDev, n, s) },
		func() error { return g.CopyAsync(b, a, n, s) },
		func() error { return g.CopyAsync(dstDev, b, n, s) },
		func() error { return g.Synchronize(s, o.Timeout) },
	} {
		if e := step(); e != nil {
			return fmt.Errorf("copies: verification: %w", e)
		}
	}
	for i, v := range out {
		if v != copyPattern(i) {
			f.Wrong++
		}
	}
	return nil
}

// timeCopies runs o.Warmup then o.Iters copies of n bytes from from to to, and returns
// the timed ones' bandwidth in GB/s.
func timeCopies(g device.GPU, s device.Stream, to, from device.Ptr, n uint64, o CopyOptions, start, end device.Event) (float64, error) {
	for i := 0; i < o.Warmup; i++ {
		if err := g.CopyAsync(to, from, n, s); err != nil {
			return 0, err
		}
	}
	if err := g.Record(start, s); err != nil {
		return 0, err
	}
	for i := 0; i < o.Iters; i++ {
		if err := g.CopyAsync(to, from, n, s); err != nil {
			return 0, err
		}
	}
	if err := g.Record(end, s); err != nil {
		return 0, err
	}
	if err := g.Synchronize(s, o.Timeout); err != nil {
		return 0, err
	}
	ms, err := g.ElapsedMs(start, end)
	if err != nil {
		return 0, err
	}
	if !(ms > 0) {
		return 0, errors.New("the copies took no measurable time")
	}
	return float64(n) * float64(o.Iters) / (ms * 1e6), nil
}

// copyPattern is byte i of the copies' pattern: not periodic in any power of two, so a
// copy to the wrong offset shows.
func copyPattern(i int) byte { return byte((i*131 + i/251 + 7) % 251) }
