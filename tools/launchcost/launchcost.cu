// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o launchcost launchcost.cu -lcuda
// Run:   ./launchcost   (one GPU)
// Launch-cost floor: host time per cudaLaunchKernel and per-op time of
// back-to-back launches, for an empty kernel and one shaped like allreduce ll8.
#include <cstdio>
#include <chrono>
#include <cuda_runtime.h>
#include <cuda.h>
__global__ void empty() {}
__global__ void __launch_bounds__(1024, 1) nine(void* a, void* b, unsigned long long c, void* d, void* e,
                                               unsigned long long f, unsigned g, unsigned h, unsigned* st) {
  if (threadIdx.x == 0 && blockIdx.x == 0 && st) atomicAdd(st, 1u);
}
static double now() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main() {
  cudaSetDevice(0);
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  unsigned* st; cudaMalloc(&st, 4);
  for (int w = 0; w < 100; w++) empty<<<1, 32, 0, s>>>();
  cudaStreamSynchronize(s);
  for (int n : {20, 200, 2000}) {
    for (int kind = 0; kind < 4; kind++) {
      double best = 1e9, bestcpu = 1e9;
      for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        for (int i = 0; i < n; i++) {
          if (kind == 0) empty<<<1, 32, 0, s>>>();
          else if (kind == 1) nine<<<1, 512, 0, s>>>(st, st, 8, st, st, 2, 0, 2, st);
          else if (kind == 2) nine<<<32, 512, 0, s>>>(st, st, 8, st, st, 2, 0, 2, st);
          else { CUfunction f; cudaGetFuncBySymbol(&f, (const void*)nine); void* a=st; unsigned long long c=8,ff=2; unsigned g=0,h=2;
                 void* p[9]={&a,&a,&c,&a,&a,&ff,&g,&h,&a}; cuLaunchKernel(f,1,1,1,512,1,1,0,s,p,0); }
        }
        double t1 = now();
        cudaStreamSynchronize(s);
        double t2 = now();
        if ((t2 - t0) / n < best) best = (t2 - t0) / n;
        if ((t1 - t0) / n < bestcpu) bestcpu = (t1 - t0) / n;
      }
      const char* names[] = {"empty 1x32", "9 params 1x512", "9 params 32x512", "9 params cuLaunchKernel 1x512"};
      printf("n=%5d %-30s host %.2f us/launch, time %.2f us/op\n", n, names[kind], bestcpu, best);
    }
  }
  // graph of 20 launches for comparison
  cudaGraph_t g; cudaGraphExec_t ge;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  for (int i = 0; i < 20; i++) nine<<<1, 512, 0, s>>>(st, st, 8, st, st, 2, 0, 2, st);
  cudaStreamEndCapture(s, &g); cudaGraphInstantiate(&ge, g, 0, 0, 0);
  cudaGraphLaunch(ge, s); cudaStreamSynchronize(s);
  double t0 = now();
  for (int l = 0; l < 10; l++) cudaGraphLaunch(ge, s);
  cudaStreamSynchronize(s);
  printf("graph of 20 (x10): %.2f us/op\n", (now() - t0) / 200);
  return 0;
}
