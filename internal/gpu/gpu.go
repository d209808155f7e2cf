package gpu

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
	"time"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// GPU is one device with its primary context and the loaded kernel modules.
type GPU struct {
	info    device.Info
	dev     cu.Device
	ctx     cu.CUContext
	rawCtx  uintptr
	modules []cu.Module
	names   []string

	util device.Stream // for Memset and CopyToDevice, which must finish before they return

	mu        sync.Mutex
	kernels   map[string]cu.Function
	graphs    map[device.Graph]graphPair
	nextGraph device.Graph
}

var _ device.GPU = (*GPU)(nil)

// DeviceCount returns how many GPUs this process sees.
func DeviceCount() (int, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return 0, fmt.Errorf("cuDeviceGetCount: %w", err)
	}
	return n, nil
}

// Open makes the primary context of device ordinal current on the calling goroutine's OS
// thread (which it locks) and loads the given fatbin images (name → bytes).
func Open(ordinal int, images map[string][]byte) (*GPU, error) {
	n, err := DeviceCount()
	if err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("GPU %d does not exist: this process sees %d GPU(s)", ordinal, n)
	}
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return nil, fmt.Errorf("cuDeviceGet(%d): %w", ordinal, err)
	}
	g := &GPU{dev: dev, kernels: map[string]cu.Function{}, graphs: map[device.Graph]graphPair{}}
	if g.ctx, err = dev.RetainPrimaryCtx(); err != nil {
		return nil, fmt.Errorf("cuDevicePrimaryCtxRetain(%d): %w", ordinal, err)
	}
	g.rawCtx = *(*uintptr)(unsafe.Pointer(&g.ctx))
	if err := g.Bind(); err != nil {
		return nil, err
	}
	if err := g.readInfo(ordinal); err != nil {
		return nil, err
	}
	if g.util, err = g.NewStream(); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(images))
	for name := range images {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		m, err := cu.LoadFatBinary(string(images[name]))
		if err != nil {
			return nil, fmt.Errorf("cuModuleLoadFatBinary(%s) on %s (sm_%d%d): %w", name, g.info.Name, g.info.Major, g.info.Minor, err)
		}
		g.modules = append(g.modules, m)
		g.names = append(g.names, name)
	}
	return g, nil
}

func (g *GPU) readInfo(ordinal int) error {
	name, err := g.dev.Name()
	if err != nil {
		return fmt.Errorf("cuDeviceGetName: %w", err)
	}
	major, minor, err := g.dev.ComputeCapability()
	if err != nil {
		return fmt.Errorf("cuDeviceComputeCapability: %w", err)
	}
	sms, err := g.dev.Attribute(cu.MultiprocessorCount)
	if err != nil {
		return fmt.Errorf("cuDeviceGetAttribute(MULTIPROCESSOR_COUNT): %w", err)
	}
	total, err := g.dev.TotalMem()
	if err != nil {
		return fmt.Errorf("cuDeviceTotalMem: %w", err)
	}
	bus, err := busID(ordinal)
	if err != nil {
		return err
	}
	g.info = device.Info{Ordinal: ordinal, Name: name, BusID: bus, SMs: sms, Major: major, Minor: minor, TotalMemory: uint64(total)}
	return nil
}

// Info describes the device.
func (g *GPU) Info() device.Info {
	return g.info
}

// Bind locks the calling goroutine to its OS thread and makes the context current there.
func (g *GPU) Bind() error {
	runtime.LockOSThread()
	if err := cu.SetCurrentContext(g.ctx); err != nil {
		return fmt.Errorf("cuCtxSetCurrent(GPU %d): %w", g.info.Ordinal, err)
	}
	return nil
}

// enter pins the calling goroutine to its OS thread and makes the context current there, so a
// method works from any goroutine (Go's test runner, for one, runs each test on its own).
// Call as: defer g.enter()().
func (g *GPU) enter() func() {
	runtime.LockOSThread()
	_ = cu.SetCurrentContext(g.ctx)
	return runtime.UnlockOSThread
}

// Close releases the primary context.
func (g *GPU) Close() error {
	defer g.enter()()
	for _, m := range g.modules {
		_ = m.Unload()
	}
	if g.util != 0 {
		_ = g.DestroyStream(g.util)
		g.util = 0
	}
	g.modules = nil
	if err := g.dev.ReleasePrimaryCtx(); err != nil {
		return fmt.Errorf("cuDevicePrimaryCtxRelease: %w", err)
	}
	return nil
}

func wrap(call string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", call, err)
}

// Alloc implements device.GPU.
func (g *GPU) Alloc(bytes uint64) (device.Ptr, error) {
	defer g.enter()()
	if bytes == 0 {
		bytes = 1
	}
	p, err := cu.MemAlloc(int64(bytes))
	if err != nil {
		free, total, _ := cu.MemInfo()
		return 0, fmt.Errorf("cuMemAlloc(%d bytes) on GPU %d (%d of %d bytes free): %w", bytes, g.info.Ordinal, free, total, err)
	}
	return device.Ptr(p), nil
}

// Free implements device.GPU.
func (g *GPU) Free(p device.Ptr) error {
	defer g.enter()()
	return wrap("cuMemFree", cu.MemFree(cu.DevicePtr(p)))
}

// MemInfo implements device.GPU.
func (g *GPU) MemInfo() (uint64, uint64, error) {
	defer g.enter()()
	free, total, err := cu.MemInfo()
	return uint64(free), uint64(total), wrap("cuMemGetInfo", err)
}

// Memset fills device memory and returns once it is done. (cuMemsetD8 may return early, and
// is not ordered with the non-blocking streams the rest of the program uses.)
func (g *GPU) Memset(p device.Ptr, v byte, bytes uint64) error {
	defer g.enter()()
	if err := cu.MemsetD8Async(cu.DevicePtr(p), v, int64(bytes), cuStream(g.util)); err != nil {
		return wrap("cuMemsetD8Async", err)
	}
	return g.Synchronize(g.util, time.Minute)
}

// CopyToDevice implements device.GPU.
func (g *GPU) CopyToDevice(dst device.Ptr, src []byte) error {
	defer g.enter()()
	if len(src) == 0 {
		return nil
	}
	// cuMemcpyHtoD from pageable memory may return before the data lands: copy on the
	// utility stream and wait for it.
	if err := cu.MemcpyHtoDAsync(cu.DevicePtr(dst), unsafe.Pointer(&src[0]), int64(len(src)), cuStream(g.util)); err != nil {
		return wrap("cuMemcpyHtoDAsync", err)
	}
	return g.Synchronize(g.util, time.Minute)
}

// CopyFromDevice implements device.GPU.
func (g *GPU) CopyFromDevice(dst []byte, src device.Ptr) error {
	defer g.enter()()
	if len(dst) == 0 {
		return nil
	}
	return wrap("cuMemcpyDtoH", cu.MemcpyDtoH(unsafe.Pointer(&dst[0]), cu.DevicePtr(src), int64(len(dst))))
}

// CanAccessPeer implements device.GPU.
func (g *GPU) CanAccessPeer(bus string) (bool, error) {
	defer g.enter()()
	peer, err := deviceByBusID(bus)
	if err != nil {
		return false, err
	}
	if peer == g.info.Ordinal {
		return true, nil // two processes on one GPU: IPC maps it like local memory
	}
	ok, err := g.dev.CanAccessPeer(cu.Device(peer))
	if err != nil {
		return false, fmt.Errorf("cuDeviceCanAccessPeer(%d, %d): %w", g.info.Ordinal, peer, err)
	}
	return ok != 0, nil
}

func cuStream(s device.Stream) cu.Stream { return *(*cu.Stream)(unsafe.Pointer(&s)) }
func cuEvent(e device.Event) cu.Event    { return *(*cu.Event)(unsafe.Pointer(&e)) }

// NewStream implements device.GPU.
func (g *GPU) NewStream() (device.Stream, error) {
	defer g.enter()()
	s, err := cu.MakeStream(cu.NonBlocking)
	if err != nil {
		return 0, wrap("cuStreamCreate", err)
	}
	return *(*device.Stream)(unsafe.Pointer(&s)), nil
}

// DestroyStream implements device.GPU.
func (g *GPU) DestroyStream(s device.Stream) error {
	defer g.enter()()
	cs := cuStream(s)
	return wrap("cuStreamDestroy", cs.Destroy())
}

// Synchronize spins on cuStreamQuery, as nccl-tests does, so that short operations are
// timed without a sleep's granularity; it gives up after timeout.
func (g *GPU) Synchronize(s device.Stream, timeout time.Duration) error {
	start := time.Now()
	for i := 0; ; i++ {
		done, err := g.streamQuery(s)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if i&1023 == 1023 {
			if time.Since(start) > timeout {
				return fmt.Errorf("GPU %d: stream did not finish within %v", g.info.Ordinal, timeout)
			}
			affinity.Yield() // the caller is locked to its thread: see affinity.Yield
		}
	}
}

// CopyAsync implements device.GPU.
func (g *GPU) CopyAsync(dst, src device.Ptr, bytes uint64, s device.Stream) error {
	defer g.enter()()
	return wrap("cuMemcpyAsync", cu.MemcpyAsync(cu.DevicePtr(dst), cu.DevicePtr(src), int64(bytes), cuStream(s)))
}

// MemsetAsync implements device.GPU.
func (g *GPU) MemsetAsync(p device.Ptr, v byte, bytes uint64, s device.Stream) error {
	defer g.enter()()
	return wrap("cuMemsetD8Async", cu.MemsetD8Async(cu.DevicePtr(p), v, int64(bytes), cuStream(s)))
}

// Kernel looks name up in every loaded module.
func (g *GPU) Kernel(name string) (device.Kernel, error) {
	defer g.enter()()
	g.mu.Lock()
	defer g.mu.Unlock()
	fn, ok := g.kernels[name]
	if !ok {
		for _, m := range g.modules {
			f, err := m.Function(name)
			if err == nil {
				fn, ok = f, true
				break
			}
		}
		if !ok {
			return 0, fmt.Errorf("kernel %q is in none of the loaded modules %v", name, g.names)
		}
		g.kernels[name] = fn
	}
	return *(*device.Kernel)(unsafe.Pointer(&fn)), nil
}

// NewEvent implements device.GPU.
func (g *GPU) NewEvent() (device.Event, error) {
	defer g.enter()()
	e, err := cu.MakeEvent(cu.DefaultEvent)
	if err != nil {
		return 0, wrap("cuEventCreate", err)
	}
	return *(*device.Event)(unsafe.Pointer(&e)), nil
}

// DestroyEvent implements device.GPU.
func (g *GPU) DestroyEvent(e device.Event) error {
	defer g.enter()()
	ce := cuEvent(e)
	return wrap("cuEventDestroy", cu.DestroyEvent(&ce))
}

// Record implements device.GPU.
func (g *GPU) Record(e device.Event, s device.Stream) error {
	defer g.enter()()
	return wrap("cuEventRecord", cuEvent(e).Record(cuStream(s)))
}

// ElapsedMs implements device.GPU.
func (g *GPU) ElapsedMs(start, end device.Event) (float64, error) {
	defer g.enter()()
	ms, err := cuEvent(start).Elapsed(cuEvent(end))
	return ms, wrap("cuEventElapsedTime", err)
}

// SetDeviceConfig writes the DeviceConfig variable `mbConfig` of every module that has one.
// device.DeviceConfig has handles.h's layout (channels' TestHandleLayout), so its bytes are
// the C struct's.
func (g *GPU) SetDeviceConfig(timeout time.Duration, errorWord device.Ptr, rank, nranks int) error {
	defer g.enter()()
	cfg := device.DeviceConfig{TimeoutNs: uint64(timeout.Nanoseconds()), ErrorWord: errorWord, Rank: uint32(rank), NRanks: uint32(nranks)}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&cfg)), unsafe.Sizeof(cfg))
	for i, m := range g.modules {
		p, size, err := m.Global("mbConfig")
		if err != nil {
			continue // a module without waits has no config
		}
		if size != int64(len(b)) {
			return fmt.Errorf("module %s: mbConfig is %d bytes, want %d", g.names[i], size, len(b))
		}
		if err := g.CopyToDevice(device.Ptr(p), b); err != nil {
			return fmt.Errorf("module %s: set mbConfig: %w", g.names[i], err)
		}
	}
	return nil
}
