// Package gpu is the CUDA implementation of device.GPU (the interface lives in
// internal/device): contexts, memory, streams, events, module loading and launches on the
// CUDA driver API, plus small cgo files for what gorgonia.org/cu does not wrap (CUDA IPC,
// mapped host memory, graphs, dma-buf export).
//
// It is the only package that imports gorgonia.org/cu, whose init calls cuInit and exits
// the process when no GPU is present: only the GPU worker binary (cmd/mscclpp-bench-gpu)
// may import this package, and nothing here is tested on the CPU-only CI machine. Other
// packages take a device.GPU and are tested with internal/device/devicetest.
package gpu
