package gpu

// The few driver calls gorgonia.org/cu v0.9.6 does not wrap: CUDA IPC, mapped pinned host
// memory, stream capture and graph launch, 64-bit stream writes, PCI bus ids and module
// globals by raw pointer. Each wrapper makes the context current in the same C call, so a
// goroutine that moves between OS threads still uses the right context.

/*
#cgo CFLAGS: -I/usr/include -I/usr/local/cuda/include
#cgo LDFLAGS: -lcuda
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// CUDA 12+ loads kernels lazily, on first launch. Our kernels spin on each other (a kernel
// waits for a proxy flush while the next kernel is already queued); loading a kernel while
// another spins deadlocked on 2xH200 with driver 580 (a port-channel put never completed).
// Load every kernel when its module loads instead. This constructor runs when the program
// starts, before Go's package init and so before gorgonia.org/cu calls cuInit; a value the
// user set explicitly is kept.
__attribute__((constructor(101))) static void mbEagerLoading(void) { setenv("CUDA_MODULE_LOADING", "EAGER", 0); }

// Without a usable GPU, gorgonia.org/cu's package init ends the process with a line that
// names neither this program nor what to do. This constructor, after mbEagerLoading and
// before Go's package init, asks the driver first and says it in one line (exit 1).
__attribute__((constructor(102))) static void mbCheckDevice(void) {
	int n = 0;
	CUresult r = cuInit(0);
	if (r == CUDA_SUCCESS) r = cuDeviceGetCount(&n);
	if (r == CUDA_SUCCESS && n > 0) return;
	const char* name = "no device";
	const char* text = "the driver lists no GPU";
	if (r != CUDA_SUCCESS) {
		if (cuGetErrorName(r, &name) != CUDA_SUCCESS) name = "unknown error";
		if (cuGetErrorString(r, &text) != CUDA_SUCCESS) text = "";
	}
	fprintf(stderr, "mscclpp-bench: no usable GPU on this machine (cuInit: %s: %s); GPU subcommands need one (help, version, compare and plot run anywhere)\n", name, text);
	exit(1);
}

static CUresult mbIpcGet(CUcontext c, CUdeviceptr p, void* out) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	CUipcMemHandle h;
	r = cuIpcGetMemHandle(&h, p);
	if (r == CUDA_SUCCESS) memcpy(out, &h, sizeof h);
	return r;
}

static CUresult mbIpcOpen(CUcontext c, const void* in, CUdeviceptr* p) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	CUipcMemHandle h;
	memcpy(&h, in, sizeof h);
	return cuIpcOpenMemHandle(p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
}

static CUresult mbIpcClose(CUcontext c, CUdeviceptr p) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	return cuIpcCloseMemHandle(p);
}

static CUresult mbHostAlloc(CUcontext c, size_t bytes, void** host, CUdeviceptr* dev) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	r = cuMemHostAlloc(host, bytes, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
	if (r != CUDA_SUCCESS) return r;
	memset(*host, 0, bytes);
	return cuMemHostGetDevicePointer(dev, *host, 0);
}

static CUresult mbHostRegister(CUcontext c, void* host, size_t bytes, CUdeviceptr* dev) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	r = cuMemHostRegister(host, bytes, CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE);
	if (r != CUDA_SUCCESS) return r;
	return cuMemHostGetDevicePointer(dev, host, 0);
}

static CUresult mbHostUnregister(CUcontext c, void* host) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	return cuMemHostUnregister(host);
}

static CUresult mbHostFree(CUcontext c, void* host) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	return cuMemFreeHost(host);
}

static CUresult mbBeginCapture(CUcontext c, CUstream s) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	return cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED);
}

static CUresult mbEndCapture(CUcontext c, CUstream s, CUgraph* g, CUgraphExec* e) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	r = cuStreamEndCapture(s, g);
	if (r != CUDA_SUCCESS) return r;
	r = cuGraphInstantiateWithFlags(e, *g, 0);
	if (r != CUDA_SUCCESS) cuGraphDestroy(*g);
	return r;
}

static CUresult mbGraphLaunch(CUcontext c, CUgraphExec e, CUstream s) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	return cuGraphLaunch(e, s);
}

static CUresult mbGraphDestroy(CUcontext c, CUgraph g, CUgraphExec e) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	CUresult r1 = cuGraphExecDestroy(e);
	CUresult r2 = cuGraphDestroy(g);
	return r1 != CUDA_SUCCESS ? r1 : r2;
}

static CUresult mbWriteValue64(CUcontext c, CUstream s, CUdeviceptr p, cuuint64_t v) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	return cuStreamWriteValue64_v2(s, p, v, CU_STREAM_WRITE_VALUE_DEFAULT);
}

static CUresult mbStreamQuery(CUcontext c, CUstream s) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	return cuStreamQuery(s);
}

// mbLaunch sets the context and launches with up to 20 eight-byte arguments, in one call.
static CUresult mbLaunch(CUcontext c, CUfunction f, unsigned grid, unsigned block, unsigned shmem, CUstream s,
                         const uint64_t* args, int n) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	if (n > 20) return CUDA_ERROR_INVALID_VALUE;
	uint64_t vals[20];
	void* params[20];
	for (int i = 0; i < n; i++) {
		vals[i] = args[i];
		params[i] = &vals[i];
	}
	return cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shmem, s, params, 0);
}

static CUresult mbBusID(CUdevice d, char* out, int n) { return cuDeviceGetPCIBusId(out, n, d); }

static CUresult mbDeviceByBusID(const char* id, CUdevice* d) { return cuDeviceGetByPCIBusId(d, id); }

static const char* mbErrorName(CUresult r) {
	const char* s = 0;
	if (cuGetErrorName(r, &s) != CUDA_SUCCESS || s == 0) return "CUDA_ERROR_UNKNOWN";
	return s;
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// cuErr turns a driver result into an error that names the call.
func cuErr(call string, r C.CUresult) error {
	if r == C.CUDA_SUCCESS {
		return nil
	}
	return fmt.Errorf("%s: %s (%d)", call, C.GoString(C.mbErrorName(r)), int(r))
}

func (g *GPU) cctx() C.CUcontext { return *(*C.CUcontext)(unsafe.Pointer(&g.rawCtx)) }

func cstream(s device.Stream) C.CUstream { return *(*C.CUstream)(unsafe.Pointer(&s)) }

// IPCGetHandle implements device.GPU.
func (g *GPU) IPCGetHandle(p device.Ptr) (device.IPCHandle, error) {
	var h device.IPCHandle
	r := C.mbIpcGet(g.cctx(), C.CUdeviceptr(p), unsafe.Pointer(&h[0]))
	return h, cuErr("cuIpcGetMemHandle", r)
}

// IPCOpen implements device.GPU.
func (g *GPU) IPCOpen(h device.IPCHandle) (device.Ptr, error) {
	var p C.CUdeviceptr
	r := C.mbIpcOpen(g.cctx(), unsafe.Pointer(&h[0]), &p)
	return device.Ptr(p), cuErr("cuIpcOpenMemHandle", r)
}

// IPCClose implements device.GPU.
func (g *GPU) IPCClose(p device.Ptr) error {
	return cuErr("cuIpcCloseMemHandle", C.mbIpcClose(g.cctx(), C.CUdeviceptr(p)))
}

// AllocMapped implements device.GPU.
func (g *GPU) AllocMapped(bytes uint64) (unsafe.Pointer, device.Ptr, error) {
	var host unsafe.Pointer
	var dev C.CUdeviceptr
	r := C.mbHostAlloc(g.cctx(), C.size_t(bytes), &host, &dev)
	if r != C.CUDA_SUCCESS {
		return nil, 0, cuErr(fmt.Sprintf("cuMemHostAlloc(%d bytes, DEVICEMAP)", bytes), r)
	}
	return host, device.Ptr(dev), nil
}

// FreeMapped implements device.GPU.
func (g *GPU) FreeMapped(host unsafe.Pointer) error {
	return cuErr("cuMemFreeHost", C.mbHostFree(g.cctx(), host))
}

// HostRegister implements device.GPU: it pins host memory this process mapped (for example
// a shared-memory file) and maps it into the device.
func (g *GPU) HostRegister(host unsafe.Pointer, bytes uint64) (device.Ptr, error) {
	var dev C.CUdeviceptr
	if r := C.mbHostRegister(g.cctx(), host, C.size_t(bytes), &dev); r != C.CUDA_SUCCESS {
		return 0, cuErr(fmt.Sprintf("cuMemHostRegister(%d bytes, DEVICEMAP)", bytes), r)
	}
	return device.Ptr(dev), nil
}

// HostUnregister implements device.GPU.
func (g *GPU) HostUnregister(host unsafe.Pointer) error {
	return cuErr("cuMemHostUnregister", C.mbHostUnregister(g.cctx(), host))
}

// StreamIdle implements device.GPU.
func (g *GPU) StreamIdle(s device.Stream) (bool, error) { return g.streamQuery(s) }

// BeginCapture implements device.GPU.
func (g *GPU) BeginCapture(s device.Stream) error {
	return cuErr("cuStreamBeginCapture", C.mbBeginCapture(g.cctx(), cstream(s)))
}

type graphPair struct {
	graph C.CUgraph
	exec  C.CUgraphExec
}

// EndCapture implements device.GPU.
func (g *GPU) EndCapture(s device.Stream) (device.Graph, error) {
	var gr C.CUgraph
	var ex C.CUgraphExec
	r := C.mbEndCapture(g.cctx(), cstream(s), &gr, &ex)
	if r != C.CUDA_SUCCESS {
		return 0, cuErr("cuStreamEndCapture/cuGraphInstantiateWithFlags", r)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.nextGraph++
	id := g.nextGraph
	g.graphs[id] = graphPair{gr, ex}
	return device.Graph(id), nil
}

func (g *GPU) graph(id device.Graph) (graphPair, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, ok := g.graphs[id]
	if !ok {
		return graphPair{}, fmt.Errorf("graph %d is not known", id)
	}
	return p, nil
}

// LaunchGraph implements device.GPU.
func (g *GPU) LaunchGraph(id device.Graph, s device.Stream) error {
	p, err := g.graph(id)
	if err != nil {
		return err
	}
	return cuErr("cuGraphLaunch", C.mbGraphLaunch(g.cctx(), p.exec, cstream(s)))
}

// DestroyGraph implements device.GPU.
func (g *GPU) DestroyGraph(id device.Graph) error {
	p, err := g.graph(id)
	if err != nil {
		return err
	}
	g.mu.Lock()
	delete(g.graphs, id)
	g.mu.Unlock()
	return cuErr("cuGraphExecDestroy/cuGraphDestroy", C.mbGraphDestroy(g.cctx(), p.graph, p.exec))
}

// WriteValue64Async implements device.GPU.
func (g *GPU) WriteValue64Async(dst device.Ptr, v uint64, s device.Stream) error {
	r := C.mbWriteValue64(g.cctx(), cstream(s), C.CUdeviceptr(dst), C.cuuint64_t(v))
	return cuErr("cuStreamWriteValue64", r)
}

// streamQuery returns (true, nil) when s is idle, (false, nil) while it runs.
func (g *GPU) streamQuery(s device.Stream) (bool, error) {
	r := C.mbStreamQuery(g.cctx(), cstream(s))
	switch r {
	case C.CUDA_SUCCESS:
		return true, nil
	case C.CUDA_ERROR_NOT_READY:
		return false, nil
	}
	return false, cuErr("cuStreamQuery", r)
}

// Launch runs k with 8-byte arguments in a single cgo call (the hot path of every
// non-graph iteration).
func (g *GPU) Launch(k device.Kernel, d device.Dim, s device.Stream, args ...uint64) error {
	if len(args) > 20 {
		return fmt.Errorf("launch: %d arguments, at most 20", len(args))
	}
	var argp *C.uint64_t
	if len(args) > 0 {
		argp = (*C.uint64_t)(unsafe.Pointer(&args[0]))
	}
	fn := *(*C.CUfunction)(unsafe.Pointer(&k))
	r := C.mbLaunch(g.cctx(), fn, C.uint(d.Grid), C.uint(d.Block), C.uint(d.SharedMem), cstream(s), argp, C.int(len(args)))
	if r != C.CUDA_SUCCESS {
		return cuErr(fmt.Sprintf("cuLaunchKernel(grid %d, block %d)", d.Grid, d.Block), r)
	}
	return nil
}

func busID(ordinal int) (string, error) {
	var buf [64]C.char
	if r := C.mbBusID(C.CUdevice(ordinal), &buf[0], C.int(len(buf))); r != C.CUDA_SUCCESS {
		return "", cuErr("cuDeviceGetPCIBusId", r)
	}
	return C.GoString(&buf[0]), nil
}

func deviceByBusID(id string) (int, error) {
	cs := C.CString(id)
	defer C.free(unsafe.Pointer(cs))
	var d C.CUdevice
	if r := C.mbDeviceByBusID(cs, &d); r != C.CUDA_SUCCESS {
		return -1, cuErr("cuDeviceGetByPCIBusId("+id+")", r)
	}
	return int(d), nil
}
