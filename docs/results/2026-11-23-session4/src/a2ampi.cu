// Same traffic patterns as a2a.cu, but one process per GPU with legacy CUDA IPC (as mscclpp-bench).
#include <cstdio>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)
__global__ void smcopy(int4* dst, const int4* src, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) dst[i] = src[i];
}
struct Ptrs { int4* p[8]; };
__global__ void smcopyAll(Ptrs dsts, const int4* src, size_t n, int npeers) {
  int peer = blockIdx.x % npeers; int b = blockIdx.x / npeers, nb = gridDim.x / npeers;
  for (size_t i = b * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)nb * blockDim.x) dsts.p[peer][i] = src[i];
}
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int r, N; MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &N);
  CK(cudaSetDevice(r));
  size_t B = 128ull << 20;
  char *src, *dst; CK(cudaMalloc(&src, B)); CK(cudaMalloc(&dst, B * N));
  cudaIpcMemHandle_t h; CK(cudaIpcGetMemHandle(&h, dst));
  std::vector<cudaIpcMemHandle_t> hs(N);
  MPI_Allgather(&h, sizeof(h), MPI_BYTE, hs.data(), sizeof(h), MPI_BYTE, MPI_COMM_WORLD);
  std::vector<char*> peer(N, nullptr);
  for (int j = 0; j < N; j++) if (j != r) CK(cudaIpcOpenMemHandle((void**)&peer[j], hs[j], cudaIpcMemLazyEnablePeerAccess));
  std::vector<cudaStream_t> st(N); for (auto& s : st) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const char* names[] = {"one pair 0->1", "ring r->r+1", "all-to-all concurrent streams", "all-to-all rotated one stream", "SM all-to-all one kernel (blocks split by peer)"};
  for (int sm = 0; sm < 2; sm++) for (int pat = 0; pat < (sm ? 5 : 4); pat++) {
    if (sm && pat == 2) continue;
    double best = 1e9; size_t bytes = 0;
    for (int rep = 0; rep < 5; rep++) {
      CK(cudaDeviceSynchronize()); MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime(); bytes = 0;
      if (pat == 4) {
        Ptrs ps{}; int k = 0; for (int j = 1; j < N; j++) ps.p[k++] = (int4*)(peer[(r + j) % N] + (size_t)r * B);
        smcopyAll<<<132 / (N - 1) * (N - 1), 1024, 0, st[0]>>>(ps, (const int4*)src, B / 16, N - 1); bytes = B * (N - 1);
      } else if (!(pat == 0 && r > 0)) {
        for (int k = 1; k < N; k++) {
          if (pat <= 1 && k > 1) break;
          int j = (r + k) % N; char* d = peer[j] + (size_t)r * B; cudaStream_t s = pat == 2 ? st[k] : st[0];
          if (sm) smcopy<<<132, 1024, 0, s>>>((int4*)d, (const int4*)src, B / 16); else CK(cudaMemcpyAsync(d, src, B, cudaMemcpyDeviceToDevice, s));
          bytes += B;
        }
      }
      CK(cudaDeviceSynchronize()); MPI_Barrier(MPI_COMM_WORLD);
      double t = MPI_Wtime() - t0; if (t < best) best = t;
    }
    if (r == 0) printf("%s %-48s rank 0 egress %.1f GB/s (%d ranks, %zu MiB per copy)\n", sm ? "SM" : "CE", names[pat], bytes / best / 1e9, N, B >> 20);
  }
  MPI_Finalize();
  return 0;
}
