// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o putsync putsync.cu
// Run:   ./putsync   (two GPUs with peer access)
// Where the fixed cost of a put-style kernel goes, between GPU 0 and 1 of one process (peer
// access over NVLink), each kernel captured 20 times in a CUDA graph per GPU, both GPUs at once.
// Modes:
//   empty   nothing
//   hs      start handshake only: relaxed remote add, relaxed spin
//   end     direct put + release add + acquire spin (no start handshake: timing only)
//   put     hs + direct put + release add + acquire spin (as the collectives' put kernels)
//   pipe    put into the peer's scratch slot (launch parity), release add, acquire spin,
//           then copy my share of my scratch to the output
//   ll16    LL16 packets into the peer's scratch (launch parity), spin on my own
//   fence   direct put + __threadfence_system only
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

enum { EMPTY, HS, END, PUT, PIPE, LL16M, FENCE, NMODES };
const char* names[] = {"empty", "hs", "end", "put", "pipe", "ll16", "fence"};

struct Args {
  uint64_t* inbound;      // mine: [2][256]
  uint64_t* peerInbound;  // the peer's
  uint64_t* expected;     // mine: [2][256]
  char* in;
  char* out;
  char* peerOut;
  char* scratch;      // mine: 2 slots of maxBytes*2
  char* peerScratch;  // the peer's
  uint64_t bytes;
  uint32_t* launches;  // [0] launch counter, [1] arrived
  uint32_t* err;
};

__device__ __forceinline__ uint64_t ldAcq(const uint64_t* p) { uint64_t v; asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ uint64_t ldRlx(const uint64_t* p) { uint64_t v; asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ void addRel(uint64_t* p) { asm volatile("red.release.sys.global.add.u64 [%0], 1;" ::"l"(p) : "memory"); }
__device__ __forceinline__ void addRlx(uint64_t* p) { asm volatile("red.relaxed.sys.global.add.u64 [%0], 1;" ::"l"(p) : "memory"); }

__device__ void spin(const uint64_t* p, uint64_t* exp, bool acq, uint32_t* err) {
  uint64_t want = *exp + 1;
  *exp = want;
  for (long i = 0; (acq ? ldAcq(p) : ldRlx(p)) < want; i++)
    if (i > 200000000) { *err = 1; return; }
}

__device__ void copy16(char* d, const char* s, uint64_t n, uint64_t tid, uint64_t nth) {
  int4* dd = (int4*)d;
  const int4* ss = (const int4*)s;
  uint64_t m = n / 16, i = tid;
  for (; i + 3 * nth < m; i += 4 * nth) {
    int4 a = ss[i], b = ss[i + nth], c = ss[i + 2 * nth], e = ss[i + 3 * nth];
    dd[i] = a; dd[i + nth] = b; dd[i + 2 * nth] = c; dd[i + 3 * nth] = e;
  }
  for (; i < m; i += nth) dd[i] = ss[i];
}

template <int Mode>
__global__ void __launch_bounds__(1024, 1) k(Args a) {
  const uint32_t flag = *(volatile uint32_t*)a.launches + 1;
  const uint64_t per = (a.bytes + gridDim.x - 1) / gridDim.x / 16 * 16 + 16;
  const uint64_t beg = min(a.bytes, per * blockIdx.x), end = min(a.bytes, beg + per);
  uint64_t* in0 = a.inbound + blockIdx.x;
  uint64_t* in1 = a.inbound + 256 + blockIdx.x;
  uint64_t* pin0 = a.peerInbound + blockIdx.x;
  uint64_t* pin1 = a.peerInbound + 256 + blockIdx.x;
  if (Mode == HS || Mode == PUT) {
    if (threadIdx.x == 0) { addRlx(pin0); spin(in0, a.expected + blockIdx.x, false, a.err); }
    __syncthreads();
  }
  if (Mode == END || Mode == PUT || Mode == FENCE) copy16(a.peerOut + beg, a.in + beg, end - beg, threadIdx.x, blockDim.x);
  const uint64_t slot = (flag & 1) * a.bytes * 2;
  if (Mode == PIPE) copy16(a.peerScratch + slot + beg, a.in + beg, end - beg, threadIdx.x, blockDim.x);
  if (Mode == FENCE) { __syncthreads(); if (threadIdx.x == 0) __threadfence_system(); }
  if (Mode == END || Mode == PUT || Mode == PIPE) {
    __syncthreads();
    if (threadIdx.x == 0) { addRel(pin1); spin(in1, a.expected + 256 + blockIdx.x, true, a.err); }
    __syncthreads();
  }
  if (Mode == PIPE) copy16(a.out + beg, a.scratch + slot + beg, end - beg, threadIdx.x, blockDim.x);
  if (Mode == LL16M) {
    // 8 data bytes per 16-byte packet
    const uint64_t units = (a.bytes + 7) / 8;
    const uint64_t tid = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x, nth = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t u = tid; u < units; u += nth) {
      uint2 v = ((const uint2*)a.in)[u];
      asm volatile("st.volatile.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(a.peerScratch + slot + u * 16), "r"(v.x), "r"(flag), "r"(v.y), "r"(flag) : "memory");
    }
    for (uint64_t u = tid; u < units; u += nth) {
      uint32_t x, f1, y, f2;
      long i = 0;
      do {
        asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(x), "=r"(f1), "=r"(y), "=r"(f2) : "l"(a.scratch + slot + u * 16) : "memory");
        if (++i > 200000000) { *a.err = 1; break; }
      } while (f1 != flag || f2 != flag);
      ((uint2*)a.out)[u] = make_uint2(x, y);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    if (gridDim.x == 1) { a.launches[0] = flag; }
    else if (atomicAdd(&a.launches[1], 1u) == gridDim.x - 1) { a.launches[1] = 0; a.launches[0] = flag; }
  }
}

typedef void (*KFn)(Args);
KFn fns[] = {k<EMPTY>, k<HS>, k<END>, k<PUT>, k<PIPE>, k<LL16M>, k<FENCE>};

const uint64_t maxBytes = 8ull << 20;
Args args[2];
cudaStream_t st[2];

double run(int mode, uint64_t bytes, int blocks) {
  const int N = 20;
  cudaGraphExec_t ex[2];
  for (int g = 0; g < 2; g++) {
    CK(cudaSetDevice(g));
    Args a = args[g];
    a.bytes = bytes;
    cudaGraph_t gr;
    CK(cudaStreamBeginCapture(st[g], cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < N; i++) fns[mode]<<<blocks, 1024, 0, st[g]>>>(a);
    CK(cudaStreamEndCapture(st[g], &gr));
    CK(cudaGraphInstantiate(&ex[g], gr, nullptr, nullptr, 0));
  }
  cudaEvent_t e0, e1;
  CK(cudaSetDevice(0));
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  double best = 1e30;
  for (int rep = 0; rep < 6; rep++) {
    CK(cudaSetDevice(0)); CK(cudaEventRecord(e0, st[0])); CK(cudaGraphLaunch(ex[0], st[0])); CK(cudaEventRecord(e1, st[0]));
    CK(cudaSetDevice(1)); CK(cudaGraphLaunch(ex[1], st[1]));
    for (int g = 0; g < 2; g++) { CK(cudaSetDevice(g)); CK(cudaStreamSynchronize(st[g])); }
    float ms; CK(cudaSetDevice(0)); CK(cudaEventElapsedTime(&ms, e0, e1));
    if (rep > 0 && ms * 1000.0 / N < best) best = ms * 1000.0 / N;
  }
  for (int g = 0; g < 2; g++) { uint32_t er; CK(cudaSetDevice(g)); CK(cudaMemcpy(&er, args[g].err, 4, cudaMemcpyDeviceToHost)); if (er) { printf("TIMEOUT mode %s\n", names[mode]); exit(1); } }
  return best;
}

int main() {
  for (int g = 0; g < 2; g++) {
    CK(cudaSetDevice(g));
    cudaDeviceEnablePeerAccess(1 - g, 0);
    CK(cudaStreamCreateWithFlags(&st[g], cudaStreamNonBlocking));
    Args& a = args[g];
    CK(cudaMalloc(&a.inbound, 2 * 256 * 8)); CK(cudaMemset(a.inbound, 0, 2 * 256 * 8));
    CK(cudaMalloc(&a.expected, 2 * 256 * 8)); CK(cudaMemset(a.expected, 0, 2 * 256 * 8));
    CK(cudaMalloc(&a.in, maxBytes)); CK(cudaMemset(a.in, g + 1, maxBytes));
    CK(cudaMalloc(&a.out, maxBytes));
    CK(cudaMalloc(&a.scratch, 4 * maxBytes)); CK(cudaMemset(a.scratch, 0, 4 * maxBytes));
    CK(cudaMalloc(&a.launches, 8)); CK(cudaMemset(a.launches, 0, 8));
    CK(cudaMalloc(&a.err, 4)); CK(cudaMemset(a.err, 0, 4));
  }
  for (int g = 0; g < 2; g++) {
    args[g].peerInbound = args[1 - g].inbound;
    args[g].peerOut = args[1 - g].out;
    args[g].peerScratch = args[1 - g].scratch;
  }
  printf("per-launch us (graph of 20, best of 5), both GPUs at once, 1024 threads per block\n");
  printf("%-6s %9s %6s %8s\n", "mode", "bytes", "blocks", "us");
  for (int mode = 0; mode < NMODES; mode++)
    for (uint64_t bytes : {8ull, 65536ull, 524288ull, 1ull << 20, 2ull << 20, 4ull << 20, 8ull << 20}) {
      if (mode == EMPTY || mode == HS) { if (bytes != 8) continue; }
      for (int per : {0, 64, 32, 16}) {
        int blocks = per == 0 ? 1 : (int)((bytes + (per << 10) - 1) / (per << 10));
        if (per == 0 && bytes > 65536) continue;
        if (per != 0 && bytes <= 65536 && per != 64) continue;
        if (blocks > 132) blocks = 132;
        if (mode == LL16M) blocks = per == 0 ? 1 : (int)min((uint64_t)132, (bytes * 2 + (per << 10) - 1) / (per << 10));
        printf("%-6s %9llu %6d %8.2f\n", names[mode], (unsigned long long)bytes, blocks, run(mode, bytes, blocks));
        fflush(stdout);
      }
    }
  return 0;
}
