// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o nvlink_patterns nvlink_patterns.cu
// Run:   ./nvlink_patterns   (every visible GPU, at least two, with peer access)
// NVLink traffic patterns on N GPUs of one process: one pair, a permutation (ring), all-to-all
// at once, all-to-all in rotated steps. Copy engine (cudaMemcpyPeerAsync) and SM stores.
#include <cstdio>
#include <vector>
#include <chrono>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
__global__ void smcopy(int4* dst, const int4* src, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) dst[i] = src[i];
}
int N; size_t B = 128ull << 20;
std::vector<char*> src, dst; std::vector<std::vector<cudaStream_t>> st;
// pattern: 0 pair 0->1; 1 ring; 2 all-to-all concurrent (one stream per peer); 3 all-to-all rotated steps (one stream, order rank+k)
double run(int pat, bool sm) {
  auto issue = [&](int i, int j, cudaStream_t s) {
    char* d = dst[j] + (size_t)i * B; char* sr = src[i];
    if (sm) { cudaSetDevice(i); smcopy<<<132, 1024, 0, s>>>((int4*)d, (const int4*)sr, B / 16); }
    else cudaMemcpyPeerAsync(d, j, sr, i, B, s);
  };
  double best = 1e9;
  for (int rep = 0; rep < 4; rep++) {
    for (int i = 0; i < N; i++) { cudaSetDevice(i); cudaDeviceSynchronize(); }
    double t0 = now(); size_t bytes = 0;
    for (int i = 0; i < N; i++) {
      if (pat == 0 && i > 0) break;
      for (int k = 1; k < N; k++) {
        int j = (i + k) % N;
        if ((pat == 0 || pat == 1) && k > 1) break;
        issue(i, j, pat == 2 ? st[i][k] : st[i][0]); bytes += B;
      }
    }
    for (int i = 0; i < N; i++) { cudaSetDevice(i); cudaDeviceSynchronize(); }
    double t = now() - t0; double perGpu = (double)bytes / (pat == 0 ? 1 : N) / t / 1e9;
    if (t < best) best = t;
    if (rep == 3) return perGpu;
  }
  return 0;
}
int main() {
  CK(cudaGetDeviceCount(&N));
  src.resize(N); dst.resize(N); st.resize(N);
  for (int i = 0; i < N; i++) {
    CK(cudaSetDevice(i));
    for (int j = 0; j < N; j++) if (j != i) cudaDeviceEnablePeerAccess(j, 0);
    CK(cudaMalloc(&src[i], B)); CK(cudaMalloc(&dst[i], B * N));
    st[i].resize(N); for (auto& s : st[i]) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  const char* names[] = {"one pair 0->1", "ring i->i+1 (all GPUs)", "all-to-all, concurrent streams", "all-to-all, rotated on one stream"};
  for (int sm = 0; sm < 2; sm++) for (int p = 0; p < 4; p++)
    printf("%s %-36s egress per GPU %.1f GB/s (%d GPUs, %zu MiB per copy)\n", sm ? "SM" : "CE", names[p], run(p, sm), N, B >> 20);
  return 0;
}
