package gpu

// dma-buf export of device memory, for registering it with an InfiniBand HCA without the
// peer-memory module. cuMemGetHandleForAddressRange (CUDA 11.7+) is looked up in the
// already loaded driver at run time, so that the worker still starts on older drivers.

/*
#cgo CFLAGS: -I/usr/include -I/usr/local/cuda/include
#cgo LDFLAGS: -lcuda -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <cuda.h>

typedef CUresult (*mbGetHandleFn)(void*, CUdeviceptr, size_t, CUmemRangeHandleType, unsigned long long);

// mbExportDmaBuf returns CUDA_ERROR_NOT_SUPPORTED when the driver or the device cannot.
static CUresult mbExportDmaBuf(CUcontext c, CUdevice d, CUdeviceptr p, size_t n, int* fd) {
	CUresult r = cuCtxSetCurrent(c);
	if (r != CUDA_SUCCESS) return r;
	int ok = 0;
	r = cuDeviceGetAttribute(&ok, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, d);
	if (r != CUDA_SUCCESS) return r;
	mbGetHandleFn f = (mbGetHandleFn)dlsym(RTLD_DEFAULT, "cuMemGetHandleForAddressRange");
	if (!ok || !f) return CUDA_ERROR_NOT_SUPPORTED;
	return f(fd, p, n, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
}
*/
import "C"

import (
	"fmt"
	"os"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

var _ device.DMABufExporter = (*GPU)(nil)

// ExportDMABuf implements device.DMABufExporter: it exports the host pages that cover
// [p, p+size) and returns p's offset in them.
func (g *GPU) ExportDMABuf(p device.Ptr, size uint64) (int, uint64, error) {
	page := uint64(os.Getpagesize())
	start := uint64(p) &^ (page - 1)
	end := (uint64(p) + size + page - 1) &^ (page - 1)
	var fd C.int
	r := C.mbExportDmaBuf(g.cctx(), C.CUdevice(g.dev), C.CUdeviceptr(start), C.size_t(end-start), &fd)
	if r != C.CUDA_SUCCESS {
		return -1, 0, cuErr(fmt.Sprintf("cuMemGetHandleForAddressRange(%d bytes, DMA_BUF_FD)", end-start), r)
	}
	return int(fd), uint64(p) - start, nil
}
