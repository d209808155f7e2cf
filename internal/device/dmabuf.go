package device

// DMABufExporter is implemented by GPUs that can export their memory as a dma-buf (CUDA
// 11.7+ with a driver that supports it): the way to register GPU memory for RDMA without
// the peer-memory kernel module.
type DMABufExporter interface {
	// ExportDMABuf returns a dma-buf file descriptor covering [p, p+size) and p's offset
	// in it. The caller closes the descriptor.
	ExportDMABuf(p Ptr, size uint64) (fd int, offset uint64, err error)
}
