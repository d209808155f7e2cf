// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o nvlink_ceiling nvlink_ceiling.cu
// Run:   ./nvlink_ceiling   (two GPUs with peer access)
// NVLink ceilings between GPU 0 and 1 of one process: copy engine on 1, 2, 4 streams, SM
// copies (push and pull), and copy engine plus SM copies at once, one way and both ways.
#include <cstdio>
#include <vector>
#include <chrono>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
__global__ void smcopy(int4* dst, const int4* src, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) dst[i] = src[i];
}
const size_t B = 512ull << 20;
char* buf[2][2];  // [gpu][0 src, 1 dst]
cudaStream_t st[2][4];
// One direction i -> j: fraction ce of the bytes by copy engine over ns streams, the rest by
// an SM kernel (blocks) on GPU i (push) or GPU j (pull).
void issue(int i, int ns, double ce, int blocks, bool pull) {
  int j = 1 - i;
  size_t ceb = ((size_t)(B * ce)) & ~(size_t)0xfffff;
  size_t per = ceb / ns;
  for (int k = 0; k < ns; k++) cudaMemcpyPeerAsync(buf[j][1] + k * per, j, buf[i][0] + k * per, i, per, st[i][k]);
  if (ceb < B) {
    int g = pull ? j : i;
    cudaSetDevice(g);
    smcopy<<<blocks, 1024, 0, st[g][3]>>>((int4*)(buf[j][1] + ceb), (const int4*)(buf[i][0] + ceb), (B - ceb) / 16);
  }
}
double run(bool both, int ns, double ce, int blocks, bool pull) {
  double best = 1e9;
  for (int rep = 0; rep < 5; rep++) {
    for (int g = 0; g < 2; g++) { cudaSetDevice(g); cudaDeviceSynchronize(); }
    double t0 = now();
    issue(0, ns, ce, blocks, pull);
    if (both) issue(1, ns, ce, blocks, pull);
    for (int g = 0; g < 2; g++) { cudaSetDevice(g); cudaDeviceSynchronize(); }
    double t = now() - t0;
    if (rep > 0 && t < best) best = t;
  }
  return B / best / 1e9;
}
int main() {
  for (int g = 0; g < 2; g++) {
    CK(cudaSetDevice(g));
    cudaDeviceEnablePeerAccess(1 - g, 0);
    CK(cudaMalloc(&buf[g][0], B)); CK(cudaMalloc(&buf[g][1], B));
    CK(cudaMemset(buf[g][0], g + 1, B));
    for (auto& s : st[g]) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  printf("512 MiB GPU0 -> GPU1 (and GPU1 -> GPU0 when both), GB/s per direction, best of 4\n");
  for (int both = 0; both < 2; both++) {
    const char* w = both ? "both ways" : "one way";
    for (int ns : {1, 2, 4}) printf("%-9s CE %d stream(s)              %7.1f\n", w, ns, run(both, ns, 1.0, 0, false));
    for (int blocks : {32, 66, 132}) {
      printf("%-9s SM push %3d blocks            %7.1f\n", w, blocks, run(both, 1, 0.0, blocks, false));
      printf("%-9s SM pull %3d blocks            %7.1f\n", w, blocks, run(both, 1, 0.0, blocks, true));
    }
    for (double ce : {0.5, 0.6, 0.7, 0.8, 0.9})
      for (int blocks : {16, 32, 66}) {
        printf("%-9s CE %.0f%% + SM push %3d blocks %7.1f\n", w, ce * 100, blocks, run(both, 1, ce, blocks, false));
        printf("%-9s CE %.0f%% + SM pull %3d blocks %7.1f\n", w, ce * 100, blocks, run(both, 1, ce, blocks, true));
      }
  }
  return 0;
}
