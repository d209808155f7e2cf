// reduce_device.cuh: element types and reduction operators for the collective kernels.
//
// Every reduction is done in the element type itself (integers wrap, floats round), in the
// same way on every rank, so expected values computed by verify.cu are exact. Packed words
// (4, 8 or 16 bytes holding several elements) are reduced element by element.
#ifndef MSCCLPP_BENCH_REDUCE_DEVICE_CUH_
#define MSCCLPP_BENCH_REDUCE_DEVICE_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#define MB_DEVICE __device__ __forceinline__

namespace mb {

enum RedOp { OpSum = 0, OpProd = 1, OpMin = 2, OpMax = 3, OpAvg = 4 };

template <typename T>
MB_DEVICE T fromLL(long long v) {
  return (T)v;
}
template <>
MB_DEVICE __half fromLL<__half>(long long v) {
  return __float2half((float)v);
}
template <>
MB_DEVICE __nv_bfloat16 fromLL<__nv_bfloat16>(long long v) {
  return __float2bfloat16((float)v);
}

template <typename T>
MB_DEVICE double toDouble(T v) {
  return (double)v;
}
template <>
MB_DEVICE double toDouble<__half>(__half v) {
  return (double)__half2float(v);
}
template <>
MB_DEVICE double toDouble<__nv_bfloat16>(__nv_bfloat16 v) {
  return (double)__bfloat162float(v);
}

// Apply combines two elements. Avg sums; the division happens once, in Finish.
template <typename T, int Op>
struct Apply {
  MB_DEVICE static T f(T a, T b) {
    if (Op == OpSum || Op == OpAvg) return (T)(a + b);
    if (Op == OpProd) return (T)(a * b);
    if (Op == OpMin) return a < b ? a : b;
    return a > b ? a : b;
  }
};
template <int Op>
struct Apply<__half, Op> {
  MB_DEVICE static __half f(__half a, __half b) {
    if (Op == OpSum || Op == OpAvg) return __hadd(a, b);
    if (Op == OpProd) return __hmul(a, b);
    if (Op == OpMin) return __hmin(a, b);
    return __hmax(a, b);
  }
};
template <int Op>
struct Apply<__nv_bfloat16, Op> {
  MB_DEVICE static __nv_bfloat16 f(__nv_bfloat16 a, __nv_bfloat16 b) {
    if (Op == OpSum || Op == OpAvg) return __hadd(a, b);
    if (Op == OpProd) return __hmul(a, b);
    if (Op == OpMin) return __hmin(a, b);
    return __hmax(a, b);
  }
};

// Finish turns the combined value into the result (only Avg does anything).
template <typename T, int Op>
MB_DEVICE T finish(T v, uint32_t nranks) {
  if (Op != OpAvg) return v;
  return (T)(v / (T)nranks);
}
template <>
MB_DEVICE __half finish<__half, OpAvg>(__half v, uint32_t nranks) {
  return __float2half(__half2float(v) / (float)nranks);
}
template <>
MB_DEVICE __nv_bfloat16 finish<__nv_bfloat16, OpAvg>(__nv_bfloat16 v, uint32_t nranks) {
  return __float2bfloat16(__bfloat162float(v) / (float)nranks);
}

// Word-level helpers: W is a plain word type (uint32_t, uint2, uint4, ...) holding
// sizeof(W)/sizeof(T) elements. sizeof(W) must be a multiple of sizeof(T).
template <typename T, int Op, typename W>
MB_DEVICE W applyWord(W a, W b) {
  static_assert(sizeof(W) % sizeof(T) == 0, "word must hold whole elements");
  constexpr int n = sizeof(W) / sizeof(T);
  T* pa = reinterpret_cast<T*>(&a);
  const T* pb = reinterpret_cast<const T*>(&b);
#pragma unroll
  for (int k = 0; k < n; k++) pa[k] = Apply<T, Op>::f(pa[k], pb[k]);
  return a;
}

template <typename T, int Op, typename W>
MB_DEVICE W finishWord(W a, uint32_t nranks) {
  if (Op != OpAvg) return a;
  constexpr int n = sizeof(W) / sizeof(T);
  T* pa = reinterpret_cast<T*>(&a);
#pragma unroll
  for (int k = 0; k < n; k++) pa[k] = finish<T, Op>(pa[k], nranks);
  return a;
}

}  // namespace mb

// MB_FOR_EACH_TYPE(X) calls X(name, C type) for every element type, in the order of the
// datatype table in collectives/datatype.go (collectives/all's TestKernelTypes checks both).
#define MB_FOR_EACH_TYPE(X)   \
  X(int8, int8_t)             \
  X(uint8, uint8_t)           \
  X(int32, int32_t)           \
  X(uint32, uint32_t)         \
  X(int64, int64_t)           \
  X(uint64, uint64_t)         \
  X(half, __half)             \
  X(float, float)             \
  X(double, double)           \
  X(bfloat16, __nv_bfloat16)

// MB_FOR_EACH_OP(X, name, T) calls X(name, T, op name, mb::RedOp value) for every reduction
// operator (collectives.Ops).
#define MB_FOR_EACH_OP(X, name, T) \
  X(name, T, sum, mb::OpSum)       \
  X(name, T, prod, mb::OpProd)     \
  X(name, T, min, mb::OpMin)       \
  X(name, T, max, mb::OpMax)       \
  X(name, T, avg, mb::OpAvg)

#endif  // MSCCLPP_BENCH_REDUCE_DEVICE_CUH_
