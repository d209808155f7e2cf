// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o copyengine_pieces copyengine_pieces.cu -lcuda
// Run:   ./copyengine_pieces   (two GPUs with peer access)
// Copy-engine pieces between GPU 0 and 1 of one process, both ways at once: the reduce-
// scatter half of allreduce `port` (128 MiB per direction at 256 MiB) cut into pieces, with
// and without a 64-bit stream write (the signal) after each piece, on 1 or 2 streams, with
// and without a CPU gap between pieces (the proxy's cost per trigger).
#include <cstdio>
#include <chrono>
#include <cuda.h>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static void spin(double us) { double t = now() + us * 1e-6; while (now() < t) {} }
char* src[2]; char* dst[2]; unsigned long long* flag[2];
cudaStream_t st[2][2];
// one GPU's pieces, interleaved with the other's so both start together
double run(size_t total, size_t piece, int mode, int ns, double gapUs) {
  double best = 1e9;
  for (int rep = 0; rep < 6; rep++) {
    for (int g = 0; g < 2; g++) { cudaSetDevice(g); cudaDeviceSynchronize(); }
    double t0 = now();
    unsigned long long v = rep * 1000;
    for (size_t off = 0, k = 0; off < total; off += piece, k++) {
      for (int g = 0; g < 2; g++) {
        cudaSetDevice(g);
        cudaStream_t s = st[g][k % ns];
        cudaMemcpyAsync(dst[1 - g] + off, src[g] + off, piece, cudaMemcpyDeviceToDevice, s);
        if (mode) cuStreamWriteValue64((CUstream)s, (CUdeviceptr)flag[1 - g], ++v, CU_STREAM_WRITE_VALUE_DEFAULT);
      }
      if (gapUs > 0) spin(gapUs);
    }
    for (int g = 0; g < 2; g++) { cudaSetDevice(g); cudaDeviceSynchronize(); }
    double t = now() - t0;
    if (rep > 0 && t < best) best = t;
  }
  return best;
}
int main() {
  const size_t B = 256ull << 20;
  for (int g = 0; g < 2; g++) {
    CK(cudaSetDevice(g));
    cudaDeviceEnablePeerAccess(1 - g, 0);
    CK(cudaMalloc(&src[g], B)); CK(cudaMalloc(&dst[g], B)); CK(cudaMalloc(&flag[g], 64));
    CK(cudaMemset(src[g], g + 1, B));
    for (auto& s : st[g]) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  // enqueue cost of one piece (copy + write) on the CPU
  {
    cudaSetDevice(0);
    double t0 = now();
    for (int i = 0; i < 200; i++) {
      cudaMemcpyAsync(dst[1], src[0], 4096, cudaMemcpyDeviceToDevice, st[0][0]);
      cuStreamWriteValue64((CUstream)st[0][0], (CUdeviceptr)flag[1], i, CU_STREAM_WRITE_VALUE_DEFAULT);
    }
    double t1 = now();
    cudaDeviceSynchronize();
    printf("enqueue copy+write: %.2f us each (CPU)\n", (t1 - t0) / 200 * 1e6);
    // latency of one 4 KiB piece + write, measured to the host sync
    double lat = 1e9;
    for (int i = 0; i < 50; i++) {
      double a = now();
      cudaMemcpyAsync(dst[1], src[0], 4096, cudaMemcpyDeviceToDevice, st[0][0]);
      cuStreamWriteValue64((CUstream)st[0][0], (CUdeviceptr)flag[1], i, CU_STREAM_WRITE_VALUE_DEFAULT);
      cudaStreamSynchronize(st[0][0]);
      double b = now() - a;
      if (b < lat) lat = b;
    }
    printf("4 KiB copy + write, enqueue to sync: %.2f us\n", lat * 1e6);
  }
  printf("both ways, per direction: total piece mode streams gap -> us, GB/s per direction\n");
  for (size_t total : {size_t(128) << 20, size_t(256) << 20})
    for (size_t piece : {size_t(2) << 20, size_t(4) << 20, size_t(8) << 20, size_t(16) << 20, size_t(32) << 20, total})
      for (int mode : {0, 1})
        for (int ns : {1, 2})
          for (double gap : {0.0, 12.0}) {
            if (piece == total && (ns == 2 || gap > 0)) continue;
            double t = run(total, piece, mode, ns, gap);
            printf("%4zu MiB %4zu MiB %-10s %d %4.0f -> %8.1f us %6.1f GB/s\n", total >> 20, piece >> 20,
                   mode ? "copy+write" : "copy", ns, gap, t * 1e6, total / t / 1e9);
          }
  return 0;
}
