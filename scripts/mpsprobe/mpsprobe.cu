// mpsprobe: what a process sharing a GPU can count on, with or without MPS
// (docs/gpu-testing.md). Build: nvcc -O2 -arch=sm_90 -o mpsprobe mpsprobe.cu -lcuda
//
//   mpsprobe info            the SMs this process may use: the device's count, the
//                            execution-affinity SM count of its context, and how many
//                            1024-thread blocks of a waiting kernel fit on one SM
//   mpsprobe signal [N]      can a 64-bit signal reach a kernel of this process that is
//                            spinning on it? One spinning kernel on one stream; the signal
//                            comes on each of N (default 8) other streams in turn, as:
//                              memop  cuStreamWriteValue64_v2 into GPU memory on a stream
//                                     that carries nothing else
//                              copy   an 8-byte copy from pinned host memory into GPU
//                                     memory, then a write into host memory (the done
//                                     word), on one stream
//                              cpmem  an 8-byte copy into other GPU memory, then
//                                     cuStreamWriteValue64_v2 into GPU memory, on one stream
//                              cpu    a CPU store into mapped host memory the kernel polls
//                            It prints, per way, the kernel's wait for each stream in
//                            microseconds, or "late" when the kernel's 300 ms limit ran
//                            out first (the signal waited for the kernel to end).
//   mpsprobe coresident P B  forks P processes; each launches B blocks of 1024 threads
//                            (one block per SM, by shared memory) that all wait until
//                            every block of every process has started (host memory shared
//                            by the processes), for up to 2 s. It prints how many of the
//                            P*B blocks each process saw: fewer than P*B means the grids
//                            could not all be resident at once.
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// die waits for the kernels in flight before it exits: under MPS, a client that exits with
// a kernel running can leave the server unusable for the next clients.
static void die() {
  cudaDeviceSynchronize();
  exit(1);
}

#define CK(x)                                                                    \
  do {                                                                           \
    cudaError_t e_ = (x);                                                        \
    if (e_ != cudaSuccess) {                                                     \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      die();                                                                     \
    }                                                                            \
  } while (0)
#define CKD(x)                                                                   \
  do {                                                                           \
    CUresult r_ = (x);                                                           \
    if (r_ != CUDA_SUCCESS) {                                                    \
      const char* s_ = "?";                                                      \
      cuGetErrorName(r_, &s_);                                                   \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_);             \
      die();                                                                     \
    }                                                                            \
  } while (0)

__device__ __forceinline__ uint64_t now() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ uint64_t loadSys(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// spin waits up to limit ns for *flag >= want; *took gets the wait in ns (limit: too late).
__global__ void spin(const uint64_t* flag, uint64_t want, uint64_t limit, volatile uint64_t* took,
                     volatile uint64_t* started) {
  if (threadIdx.x != 0) return;
  const uint64_t t0 = now();
  *started = 1;
  __threadfence_system();
  while (loadSys(flag) < want) {
    if (now() - t0 > limit) {
      *took = limit;
      return;
    }
  }
  *took = now() - t0;
}

// gather: every block marks its slot, then waits until all n slots are marked (or 2 s).
__global__ void gather(volatile uint32_t* slots, uint32_t first, uint32_t n, volatile uint32_t* seen) {
  extern __shared__ char pad[];
  if (threadIdx.x != 0) return;
  pad[0] = 1;
  slots[first + blockIdx.x] = 1;
  __threadfence_system();
  const uint64_t t0 = now();
  uint32_t count = 0;
  while (now() - t0 < 2000000000ull) {
    count = 0;
    for (uint32_t i = 0; i < n; i++) count += slots[i];
    if (count == n) break;
  }
  if (blockIdx.x == 0) *seen = count;
}

static double ms() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void info() {
  CKD(cuInit(0));
  CUdevice d;
  CKD(cuDeviceGet(&d, 0));
  CK(cudaFree(0));  // the primary context
  int sms = 0, support = -1;
  CKD(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d));
  CUresult r = cuDeviceGetExecAffinitySupport(&support, CU_EXEC_AFFINITY_TYPE_SM_COUNT, d);
  CUexecAffinityParam p;
  memset(&p, 0, sizeof p);
  CUresult r2 = cuCtxGetExecAffinity(&p, CU_EXEC_AFFINITY_TYPE_SM_COUNT);
  int perSM = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, spin, 1024, 0));
  printf("info: multiprocessors %d; exec-affinity support %d (rc %d); context SM count %u (rc %d); "
         "1024-thread blocks per SM %d; CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%s\n",
         sms, support, (int)r, p.param.smCount.val, (int)r2, perSM,
         getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") ? getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") : "(unset)");
}

static void signalTest(int nstreams) {
  CK(cudaSetDevice(0));
  cudaStream_t ks;
  CK(cudaStreamCreateWithFlags(&ks, cudaStreamNonBlocking));
  cudaStream_t* ss = (cudaStream_t*)calloc(nstreams, sizeof *ss);
  for (int i = 0; i < nstreams; i++) CK(cudaStreamCreateWithFlags(&ss[i], cudaStreamNonBlocking));
  uint64_t *dflag, *dother, *hflag, *hsrc, *hdone, *took, *started;
  CK(cudaMalloc(&dflag, 8));
  CK(cudaMalloc(&dother, 8));
  CK(cudaHostAlloc(&hflag, 8, cudaHostAllocMapped));
  CK(cudaHostAlloc(&hsrc, 8, cudaHostAllocMapped));
  CK(cudaHostAlloc(&hdone, 8, cudaHostAllocMapped));
  CK(cudaHostAlloc(&took, 8, cudaHostAllocMapped));
  CK(cudaHostAlloc(&started, 8, cudaHostAllocMapped));
  uint64_t *hflagDev, *hdoneDev, *tookDev, *startedDev;
  CK(cudaHostGetDevicePointer(&hflagDev, hflag, 0));
  CK(cudaHostGetDevicePointer(&hdoneDev, hdone, 0));
  CK(cudaHostGetDevicePointer(&tookDev, took, 0));
  CK(cudaHostGetDevicePointer(&startedDev, started, 0));
  const char* ways[] = {"memop", "copy", "cpmem", "cpu"};
  const uint64_t limit = 300000000ull;
  uint64_t value = 0;
  for (int w = 0; w < 4; w++) {
    printf("signal %-5s:", ways[w]);
    int late = 0;
    for (int i = 0; i < nstreams; i++) {
      value++;
      *started = 0;
      const uint64_t* flag = w == 3 ? hflagDev : dflag;
      spin<<<1, 32, 0, ks>>>(flag, value, limit, tookDev, startedDev);
      CK(cudaGetLastError());
      double t0 = ms();
      while (*(volatile uint64_t*)started == 0 && ms() - t0 < 1000) {
      }
      usleep(2000);  // the kernel is spinning now
      if (w == 0) {
        CKD(cuStreamWriteValue64_v2((CUstream)ss[i], (CUdeviceptr)dflag, value, 0));
      } else if (w == 1) {
        *hsrc = value;
        CK(cudaMemcpyAsync(dflag, hsrc, 8, cudaMemcpyHostToDevice, ss[i]));
        CKD(cuStreamWriteValue64_v2((CUstream)ss[i], (CUdeviceptr)hdoneDev, value, 0));
      } else if (w == 2) {
        CK(cudaMemcpyAsync(dother, hsrc, 8, cudaMemcpyHostToDevice, ss[i]));
        CKD(cuStreamWriteValue64_v2((CUstream)ss[i], (CUdeviceptr)dflag, value, 0));
      } else {
        __atomic_store_n(hflag, value, __ATOMIC_RELEASE);
      }
      CK(cudaStreamSynchronize(ks));
      CK(cudaStreamSynchronize(ss[i]));
      if (*took >= limit) {
        printf(" late");
        late++;
      } else {
        printf(" %.0f", *took / 1e3);
      }
    }
    printf("  (%d of %d late)\n", late, nstreams);
  }
}

static void coresident(int procs, int blocks) {
  size_t n = (size_t)procs * blocks;
  uint32_t* slots = (uint32_t*)mmap(NULL, 4096 + n * 4, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (slots == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  memset(slots, 0, 4096 + n * 4);
  pid_t* kids = (pid_t*)calloc(procs, sizeof *kids);
  for (int p = 0; p < procs; p++) {
    if ((kids[p] = fork()) == 0) {
      CK(cudaSetDevice(0));
      CK(cudaHostRegister(slots, 4096 + n * 4, cudaHostRegisterMapped | cudaHostRegisterPortable));
      uint32_t* dev;
      CK(cudaHostGetDevicePointer(&dev, slots, 0));
      uint32_t* seen;
      CK(cudaHostAlloc(&seen, 4, cudaHostAllocMapped));
      uint32_t* seenDev;
      CK(cudaHostGetDevicePointer(&seenDev, seen, 0));
      int smem = 0, maxSmem = 0;
      CK(cudaDeviceGetAttribute(&maxSmem, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
      smem = maxSmem;  // one block per SM
      CK(cudaFuncSetAttribute(gather, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      __atomic_fetch_add(&slots[n + 1000], 1u, __ATOMIC_SEQ_CST);  // ready
      while (__atomic_load_n(&slots[n + 1000], __ATOMIC_SEQ_CST) < (uint32_t)procs) usleep(100);
      double t0 = ms();
      gather<<<blocks, 1024, smem>>>(dev + 0, (uint32_t)(p * blocks), (uint32_t)n, seenDev);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      printf("coresident: process %d saw %u of %zu blocks in %.0f ms\n", p, *seen, n, ms() - t0);
      fflush(stdout);
      _exit(*seen == n ? 0 : 3);
    }
  }
  int bad = 0;
  for (int p = 0; p < procs; p++) {
    int st = 0;
    waitpid(kids[p], &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) bad = 1;
  }
  printf("coresident %d x %d: %s\n", procs, blocks, bad ? "NOT all resident at once" : "all resident at once");
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc >= 2 && strcmp(argv[1], "info") == 0) {
    info();
  } else if (argc >= 2 && strcmp(argv[1], "signal") == 0) {
    signalTest(argc > 2 ? atoi(argv[2]) : 8);
  } else if (argc >= 4 && strcmp(argv[1], "coresident") == 0) {
    coresident(atoi(argv[2]), atoi(argv[3]));
  } else {
    fprintf(stderr, "usage: mpsprobe info | signal [N] | coresident PROCS BLOCKS\n");
    return 2;
  }
  return 0;
}
