// copy_device.cuh: many-thread copies. The bulk moves in 16-byte vectors with Unroll
// independent loads in flight per thread; the tail that is not a whole vector is copied
// byte by byte. Pointers equally far from 16-byte alignment peel their head and take the
// vector path too; others fall back to 4-byte or byte copies (slow but correct).
#ifndef MSCCLPP_BENCH_COPY_DEVICE_CUH_
#define MSCCLPP_BENCH_COPY_DEVICE_CUH_

#include "atomic_device.cuh"

namespace mb {

template <int Unroll = 4>
MB_DEVICE void copyVec16(int4* d, const int4* s, uint64_t n, uint64_t tid, uint64_t nthreads) {
  uint64_t i = tid;
  const uint64_t step = nthreads * Unroll;
  for (; i + (Unroll - 1) * nthreads < n; i += step) {
    int4 v[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; u++) v[u] = s[i + u * nthreads];
#pragma unroll
    for (int u = 0; u < Unroll; u++) d[i + u * nthreads] = v[u];
  }
  for (; i < n; i += nthreads) d[i] = s[i];
}

// copy moves bytes from src to dst using threads tid of nthreads. When dst and src are
// equally far from 16-byte alignment (buffers shifted alike, nccl-tests' -u), the head up to
// the first aligned byte is peeled off byte by byte and the middle moves in 16-byte vectors;
// aligned buffers have no head.
template <int Unroll = 4>
MB_DEVICE void copy(void* dst, const void* src, uint64_t bytes, uint64_t tid, uint64_t nthreads) {
  char* d = reinterpret_cast<char*>(dst);
  const char* s = reinterpret_cast<const char*>(src);
  uint64_t done = 0;
  const uintptr_t da = reinterpret_cast<uintptr_t>(d), sa = reinterpret_cast<uintptr_t>(s);
  if (((da ^ sa) & 15) == 0) {
    const uint64_t head = min((uint64_t)((16 - (da & 15)) & 15), bytes);
    if (tid < head) d[tid] = s[tid];
    uint64_t n = (bytes - head) / 16;
    copyVec16<Unroll>(reinterpret_cast<int4*>(d + head), reinterpret_cast<const int4*>(s + head), n, tid, nthreads);
    done = head + n * 16;
  } else if (((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s)) & 3) == 0) {
    uint64_t n = bytes / 4;
    for (uint64_t i = tid; i < n; i += nthreads) reinterpret_cast<uint32_t*>(d)[i] = reinterpret_cast<const uint32_t*>(s)[i];
    done = n * 4;
  }
  for (uint64_t i = done + tid; i < bytes; i += nthreads) d[i] = s[i];
}

// swapVec16 exchanges n 16-byte vectors of a and b, Unroll of each in flight per thread.
template <int Unroll = 4>
MB_DEVICE void swapVec16(int4* a, int4* b, uint64_t n, uint64_t tid, uint64_t nthreads) {
  uint64_t i = tid;
  const uint64_t step = nthreads * Unroll;
  for (; i + (Unroll - 1) * nthreads < n; i += step) {
    int4 x[Unroll], y[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; u++) {
      x[u] = a[i + u * nthreads];
      y[u] = b[i + u * nthreads];
    }
#pragma unroll
    for (int u = 0; u < Unroll; u++) {
      a[i + u * nthreads] = y[u];
      b[i + u * nthreads] = x[u];
    }
  }
  for (; i < n; i += nthreads) {
    int4 x = a[i];
    a[i] = b[i];
    b[i] = x;
  }
}

// swapBytes exchanges bytes of a and b using threads tid of nthreads: 16-byte vectors when
// both are 16-byte aligned, 4-byte words when 4-byte aligned, bytes for the rest.
MB_DEVICE void swapBytes(char* a, char* b, uint64_t bytes, uint64_t tid, uint64_t nthreads) {
  const uintptr_t align = reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b);
  uint64_t done = 0;
  if ((align & 15) == 0) {
    done = bytes / 16 * 16;
    swapVec16(reinterpret_cast<int4*>(a), reinterpret_cast<int4*>(b), bytes / 16, tid, nthreads);
  } else if ((align & 3) == 0) {
    done = bytes / 4 * 4;
    uint32_t* a4 = reinterpret_cast<uint32_t*>(a);
    uint32_t* b4 = reinterpret_cast<uint32_t*>(b);
    for (uint64_t i = tid; i < bytes / 4; i += nthreads) {
      uint32_t x = a4[i];
      a4[i] = b4[i];
      b4[i] = x;
    }
  }
  for (uint64_t i = done + tid; i < bytes; i += nthreads) {
    char x = a[i];
    a[i] = b[i];
    b[i] = x;
  }
}

// A contiguous share of [0, total) for part `i` of `parts`, in units of `align` bytes.
struct Range {
  uint64_t begin, end;
  MB_DEVICE uint64_t size() const { return end - begin; }
};

MB_DEVICE Range split(uint64_t total, uint64_t parts, uint64_t i, uint64_t align) {
  uint64_t units = (total + align - 1) / align;
  uint64_t per = units / parts, extra = units % parts;
  uint64_t b = i * per + min(i, extra);
  uint64_t e = b + per + (i < extra ? 1 : 0);
  Range r;
  r.begin = min(b * align, total);
  r.end = min(e * align, total);
  return r;
}

}  // namespace mb

#endif  // MSCCLPP_BENCH_COPY_DEVICE_CUH_
