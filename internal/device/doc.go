// Package device is the GPU interface: the plain types (Ptr, IPCHandle, Stream, Event,
// Info, DeviceConfig, Dim) and the one GPU interface through which the rest of
// mscclpp-bench uses a GPU. It holds no implementation that touches a GPU:
//
//   - internal/gpu is the CUDA implementation of GPU (the CUDA driver API through
//     gorgonia.org/cu and small cgo files); only the GPU worker binary imports it;
//   - internal/device/devicetest is a stand-in in host memory, for CPU tests.
//
// Nothing here needs a GPU or imports gorgonia.org/cu, so every package that uses these
// types is tested on the CPU. Write code against device.GPU, never against internal/gpu.
package device
