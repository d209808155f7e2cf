// put_tma.cu: memory-channel puts by the Tensor Memory Accelerator (sm_90 bulk copies).
//
// One thread per block streams its share of the buffer through shared memory: a bulk load
// (global → shared, completion counted on an mbarrier) and a bulk store (shared → the
// peer's memory over NVLink) per chunk, kStages chunks in flight. The SMs' load/store units
// stay idle, and each NVLink write is a whole chunk's worth of full lines.
//
// nvcc 11.8 knows no bulk-copy instructions, so this file is compiled to PTX only (`make`
// bumps the PTX version to 8.0) and the driver compiles it when the module is loaded; on
// GPUs before sm_90 the module does not load and these kernels are absent.
#include "mscclpp/memory_channel_device.cuh"

namespace {

constexpr int kStages = 4;
constexpr uint32_t kChunk = 8192;  // bytes per bulk copy; kStages * kChunk of shared memory

__device__ __forceinline__ uint32_t smem(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void barInit(uint64_t* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(bar)) : "memory");
}

__device__ __forceinline__ void barExpect(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes) : "memory");
}

__device__ __forceinline__ void barWait(uint64_t* bar, uint32_t phase) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n"
      "}\n" ::"r"(smem(bar)),
      "r"(phase)
      : "memory");
}

__device__ __forceinline__ void bulkLoad(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   smem(dst)),
               "l"(src), "r"(bytes), "r"(smem(bar))
               : "memory");
}

__device__ __forceinline__ void bulkStore(void* dst, const void* src, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem(src)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// bulkCopy moves [src, src+bytes) to dst (both 16-byte aligned, bytes a multiple of 16).
__device__ void bulkCopy(char* dst, const char* src, uint64_t bytes, char* buf, uint64_t* bars, uint32_t& phases) {
  const uint64_t n = (bytes + kChunk - 1) / kChunk;
  auto size = [&](uint64_t i) { return (uint32_t)min((uint64_t)kChunk, bytes - i * kChunk); };
  auto load = [&](uint64_t i) {
    int s = i % kStages;
    barExpect(&bars[s], size(i));
    bulkLoad(buf + s * kChunk, src + i * kChunk, size(i), &bars[s]);
  };
  for (uint64_t i = 0; i < n && i < kStages; i++) load(i);
  for (uint64_t i = 0; i < n; i++) {
    int s = i % kStages;
    barWait(&bars[s], (phases >> s) & 1);
    phases ^= 1u << s;
    bulkStore(dst + i * kChunk, buf + s * kChunk, size(i));
    // Refill the stage of the previous chunk once its store has read shared memory.
    if (i >= 1 && i - 1 + kStages < n) {
      asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
      load(i - 1 + kStages);
    }
  }
  // Writes complete, then visible to generic-proxy operations (the signal that follows).
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  asm volatile("fence.proxy.async.global;" ::: "memory");
}

}  // namespace

// pingpong_memory_put_tma: as pingpong_memory_put (kernels/pingpong.cu), one thread per
// block driving bulk copies. Launch with one warp per block.
extern "C" __global__ void pingpong_memory_put_tma(MemoryChannelHandle* ch, uint64_t bytes, int iters, int send,
                                                   int recv) {
  __shared__ alignas(128) char buf[kStages * kChunk];
  __shared__ alignas(8) uint64_t bars[kStages];
  mb::MemoryChannel c{*ch};
  if (threadIdx.x != 0) return;
  for (int s = 0; s < kStages; s++) barInit(&bars[s]);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  uint32_t phases = 0;
  mb::Range r = mb::split(bytes, gridDim.x, blockIdx.x, 16);
  for (int i = 0; i < iters; i++) {
    if (send) {
      if (r.size() > 0) bulkCopy(c.remote() + r.begin, c.local() + r.begin, r.size(), buf, bars, phases);
      c.signal();
    }
    if (recv && blockIdx.x == 0) c.waitN(gridDim.x);
  }
}
