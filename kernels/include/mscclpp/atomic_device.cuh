// atomic_device.cuh: memory-ordering primitives, the module's DeviceConfig, timed spins and
// device error reporting. Every wait in every kernel spins through SpinGuard, so no wait can
// hang: past DeviceConfig.timeoutNs it records an error (first error wins) and gives up.
#ifndef MSCCLPP_BENCH_ATOMIC_DEVICE_CUH_
#define MSCCLPP_BENCH_ATOMIC_DEVICE_CUH_

#include <stdint.h>

#include "handles.h"

#define MB_DEVICE __device__ __forceinline__

// Set by the host (internal/gpu) in every loaded module before the first launch.
__device__ DeviceConfig mbConfig;

namespace mb {

MB_DEVICE uint64_t loadAcquireSys(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

MB_DEVICE uint64_t loadRelaxedSys(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// 32-bit forms, for words such as LL credits (ll_device.cuh).
MB_DEVICE uint32_t loadAcquireSys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

MB_DEVICE void storeRelaxedSys(uint32_t* p, uint32_t v) {
  asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

MB_DEVICE void storeReleaseSys(uint64_t* p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

MB_DEVICE void storeRelaxedSys(uint64_t* p, uint64_t v) {
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

MB_DEVICE void addReleaseSys(uint64_t* p, uint64_t v) {
  asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

MB_DEVICE void addRelaxedSys(uint64_t* p, uint64_t v) {
  asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

MB_DEVICE uint64_t globalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

MB_DEVICE uint64_t* errorWord() { return reinterpret_cast<uint64_t*>(mbConfig.errorWord); }

// recordError keeps the first error of the process; later ones are dropped.
MB_DEVICE void recordError(uint32_t code, uint32_t peer, uint32_t channel) {
  uint64_t* w = errorWord();
  if (w == nullptr) return;
  unsigned long long v = makeDeviceError(code, peer, channel, blockIdx.x);
  atomicCAS(reinterpret_cast<unsigned long long*>(w), 0ull, v);
  __threadfence_system();
}

MB_DEVICE bool errorRecorded() {
  uint64_t* w = errorWord();
  return w != nullptr && loadRelaxedSys(w) != 0;
}

// SpinGuard bounds a spin loop: call expired() once per iteration; it returns true when
// the loop must stop, either because this wait timed out (the error is recorded) or
// because another thread already recorded an error.
struct SpinGuard {
  uint64_t start = 0;
  uint32_t n = 0;

  MB_DEVICE bool expired(uint32_t code, uint32_t peer, uint32_t channel) {
    if ((++n & 0x3ff) != 0) return false;
    uint64_t now = globalTimer();
    if (start == 0) {
      start = now;
      return false;
    }
    if (errorRecorded()) return true;
    if (now - start > mbConfig.timeoutNs) {
      recordError(code, peer, channel);
      return true;
    }
    return false;
  }
};

}  // namespace mb

#endif  // MSCCLPP_BENCH_ATOMIC_DEVICE_CUH_
