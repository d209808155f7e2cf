// host_resident_device.cuh: reading and writing host-resident buffers (pinned host memory
// mapped into the GPU: channels.Mesh.ShareHost) from kernels.
//
// Over Ethernet the proxy sends a put's bytes straight from a host-resident source, and
// the peer's receiver reads them straight into a host-resident destination, then stores
// the token: no copy engine and no stream on either side. The kernels therefore
//   - write the bytes to send into a host-resident outbox, then meet at the block's
//     barrier before one thread pushes the trigger that names them (the proxy, a CPU
//     thread, reads them once it sees the trigger);
//   - read received bytes only after the token said they are there (ld.acquire.sys in
//     awaitCount) and a gate inside the grid, and read them with ld.global.cv, which the
//     PTX ISA defines as treating cached lines of system memory as stale and fetching them
//     again, so no line cached by an earlier launch is ever read.
// No thread fences at system scope: the PTX memory model is cumulative. The trigger's
// store is a release at system scope, and after the block's barrier it publishes every
// write the block made before it, not only the pushing thread's; an acquire load of a
// token at system scope, followed by the block's barrier and the grid's gate (release and
// acquire inside the GPU), orders every thread's later loads after the receiver's writes.
// A __threadfence_system() in each of a block's 1024 threads added nothing to that order
// and cost 3-10 us a launch of host_staged on 2 simulated hosts of 2 (docs/performance.md,
// "Small launches without system fences").
#ifndef MSCCLPP_BENCH_HOST_RESIDENT_DEVICE_CUH_
#define MSCCLPP_BENCH_HOST_RESIDENT_DEVICE_CUH_

#include "mscclpp/port_collective_device.cuh"

namespace mb {

// loadFresh loads *p from memory again (ld.global.cv), whatever a cache holds.
template <typename T>
MB_DEVICE T loadFresh(const T* p) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "loadFresh: 1, 2, 4, 8 or 16 bytes");
  T v;
  if constexpr (sizeof(T) == 16) {
    int4 w;
    asm volatile("ld.global.cv.v4.s32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
                 : "l"(p)
                 : "memory");
    memcpy(&v, &w, 16);
  } else if constexpr (sizeof(T) == 8) {
    uint64_t w;
    asm volatile("ld.global.cv.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
    memcpy(&v, &w, 8);
  } else if constexpr (sizeof(T) == 4) {
    uint32_t w;
    asm volatile("ld.global.cv.u32 %0, [%1];" : "=r"(w) : "l"(p) : "memory");
    memcpy(&v, &w, 4);
  } else if constexpr (sizeof(T) == 2) {
    uint16_t w;
    asm volatile("ld.global.cv.u16 %0, [%1];" : "=h"(w) : "l"(p) : "memory");
    memcpy(&v, &w, 2);
  } else {
    uint16_t w;
    asm volatile("ld.global.cv.u8 %0, [%1];" : "=h"(w) : "l"(p) : "memory");
    const uint8_t b = static_cast<uint8_t>(w);
    memcpy(&v, &b, 1);
  }
  return v;
}

// fillOutbox: the threads of one block copy bytes from src into the host-resident outbox
// and meet at the block's barrier: a trigger pushed after it (a release at system scope)
// makes them visible to the CPU.
MB_DEVICE void fillOutbox(char* outbox, const char* src, uint64_t bytes) {
  copy(outbox, src, bytes, threadIdx.x, blockDim.x);
  __syncthreads();
}

// hostSend: block 0 (every thread) copies bytes of src into my outbox at box
// (fillOutbox), then thread i puts them, with a signal, at dstOff of peer i's buffer
// (no bytes: a signal only).
MB_DEVICE void hostSend(PortChannelHandle* chans, uint32_t npeers, char* outbox, uint64_t box, const char* src,
                        uint64_t bytes, uint64_t dstOff) {
  fillOutbox(outbox + box, src, bytes);
  if (threadIdx.x < npeers) PortChannel{chans[threadIdx.x]}.putWithSignal(dstOff, box, bytes);
}

// hostGate is portGate for data that the peers' puts landed in host-resident memory: on
// return every thread of the grid may read what the peers put before their signals, and
// must read it with loadFresh (copyFresh, reduceHost).
MB_DEVICE void hostGate(LaunchState* st, uint32_t flag, PortChannelHandle* chans, uint32_t npeers, uint64_t n) {
  portGate(st, flag, chans, npeers, n);
}

// copyFresh copies bytes from host-resident memory src to dst with threads tid of
// nthreads, reading with loadFresh. A 16-byte aligned src is read 16 bytes at a time even
// where dst is not aligned (allgather's chunks at odd sizes): then each 16 bytes are
// stored byte by byte into GPU memory, rather than read byte by byte over PCIe.
MB_DEVICE void copyFresh(char* dst, const char* src, uint64_t bytes, uint64_t tid, uint64_t nthreads) {
  uint64_t done = 0;
  if ((reinterpret_cast<uintptr_t>(src) & 15) == 0) {
    const uint64_t n = bytes / 16;
    const bool aligned = (reinterpret_cast<uintptr_t>(dst) & 15) == 0;
    for (uint64_t i = tid; i < n; i += nthreads) {
      const int4 w = loadFresh(reinterpret_cast<const int4*>(src) + i);
      if (aligned) {
        reinterpret_cast<int4*>(dst)[i] = w;
      } else {
        const char* b = reinterpret_cast<const char*>(&w);
        for (int k = 0; k < 16; k++) dst[i * 16 + k] = b[k];
      }
    }
    done = n * 16;
  }
  for (uint64_t i = done + tid; i < bytes; i += nthreads) dst[i] = loadFresh(src + i);
}

// sumInOrder returns load(0) combined by add with load(1), ..., load(n - 1), in that
// order, loading sumBatch values before adding any in, so that their loads (over PCIe for
// host-resident ones) are in flight together rather than one after another.
constexpr uint32_t sumBatch = 4;
template <typename V, typename Load, typename Add>
__device__ __forceinline__ V sumInOrder(uint32_t n, Load load, Add add) {
  V acc{}, w[sumBatch];
  for (uint32_t r0 = 0; r0 < n; r0 += sumBatch) {
#pragma unroll
    for (uint32_t j = 0; j < sumBatch; j++) {
      if (r0 + j < n) w[j] = load(r0 + j);
    }
#pragma unroll
    for (uint32_t j = 0; j < sumBatch; j++) {
      if (r0 + j < n) acc = r0 + j == 0 ? w[j] : add(acc, w[j]);
    }
  }
  return acc;
}

// reduceHost is reduceSources for nsrc sources in host-resident memory but source mine
// (my input, in GPU memory), which it reads with loadFresh: 16-byte words where every
// source and the output are aligned, element by element otherwise (-u) and for the tail.
// Finish applies the operator's last step (average: divide by nranks); a partial result
// leaves it out.
template <typename T, int Op, bool Finish = true, typename From>
__device__ void reduceHost(char* out, From from, uint32_t nsrc, uint32_t mine, uint64_t begin, uint64_t size,
                           uint32_t nranks) {
  uintptr_t align = reinterpret_cast<uintptr_t>(out + begin);
  for (uint32_t r = 0; r < nsrc; r++) align |= reinterpret_cast<uintptr_t>(from(r) + begin);
  auto word = [&](uint32_t r, uint64_t o) {
    const int4* p = reinterpret_cast<const int4*>(from(r) + o);
    return r == mine ? *p : loadFresh(p);
  };
  auto elem = [&](uint32_t r, uint64_t o) {
    const T* p = reinterpret_cast<const T*>(from(r) + o);
    return r == mine ? *p : loadFresh(p);
  };
  const uint64_t nvec = (align & 15) == 0 ? size / 16 : 0;
  for (uint64_t v = threadIdx.x; v < nvec; v += blockDim.x) {
    const uint64_t o = begin + v * 16;
    const int4 acc = sumInOrder<int4>(nsrc, [&](uint32_t r) { return word(r, o); },
                                      [](int4 a, int4 b) { return applyWord<T, Op>(a, b); });
    *reinterpret_cast<int4*>(out + o) = Finish ? finishWord<T, Op>(acc, nranks) : acc;
  }
  const uint64_t tail = (size - nvec * 16) / sizeof(T);
  for (uint64_t e = threadIdx.x; e < tail; e += blockDim.x) {
    const uint64_t o = begin + nvec * 16 + e * sizeof(T);
    const T acc = sumInOrder<T>(nsrc, [&](uint32_t r) { return elem(r, o); },
                                [](T a, T b) { return Apply<T, Op>::f(a, b); });
    *reinterpret_cast<T*>(out + o) = Finish ? finish<T, Op>(acc, nranks) : acc;
  }
}

}  // namespace mb

#endif  // MSCCLPP_BENCH_HOST_RESIDENT_DEVICE_CUH_
