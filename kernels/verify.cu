// verify.cu: test data with exactly known results.
//
// Inputs are small integers chosen per operator so that every reduction result is exact in
// every element type (integers may wrap; wrapping is modular, so the order of a reduction does
// not change it). The same formulas live in Go (collectives/expected.go) and a GPU test
// compares the two. Poisoned outputs (0xff bytes: NaN for floats, values no formula makes
// for integers) are never mistaken for results.
//
// The repeatability check (--repeat-check) uses other inputs: values of mixed magnitudes
// whose sum depends on the order it is taken in, a byte compare against a saved output,
// and an order-free hash of an output to compare ranks.
#include "mscclpp/reduce_device.cuh"

namespace {

__device__ __forceinline__ uint64_t gtid() { return (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ uint64_t gthreads() { return (uint64_t)gridDim.x * blockDim.x; }

template <typename T>
struct IsSigned {
  static constexpr bool value = (T)(-1) < (T)0;
};
template <>
struct IsSigned<__half> {
  static constexpr bool value = true;
};
template <>
struct IsSigned<__nv_bfloat16> {
  static constexpr bool value = true;
};

// input is the value rank r contributes at element i.
template <typename T, int Op>
__device__ __forceinline__ long long input(uint64_t i, uint32_t r, uint32_t n, uint32_t seed) {
  switch (Op) {
    case mb::OpSum:
      return (long long)((i * 7 + (uint64_t)r * 3 + seed) % 5);
    case mb::OpProd:
      return ((i + (uint64_t)r * 5 + seed) % 3 == 0) ? 2 : 1;
    case mb::OpMin:
    case mb::OpMax:
      return (long long)((i * 13 + (uint64_t)r * 7 + seed) % 97);
    default: {  // avg: a common base plus offsets that cancel (signed) or add N-1 (unsigned)
      long long k = (long long)((i * 5 + seed) % 4);
      return IsSigned<T>::value ? k + 2 * (long long)r - (long long)(n - 1) : k + 2 * (long long)r;
    }
  }
}

// expected is the reduction over all n ranks at element i.
template <typename T, int Op>
__device__ __forceinline__ T expected(uint64_t i, uint32_t n, uint32_t seed) {
  if (Op == mb::OpAvg) {
    long long k = (long long)((i * 5 + seed) % 4);
    return mb::fromLL<T>(IsSigned<T>::value ? k : k + (long long)(n - 1));
  }
  long long acc = input<T, Op>(i, 0, n, seed);
  for (uint32_t r = 1; r < n; r++) {
    long long v = input<T, Op>(i, r, n, seed);
    if (Op == mb::OpSum) acc += v;
    if (Op == mb::OpProd) acc *= v;
    if (Op == mb::OpMin) acc = v < acc ? v : acc;
    if (Op == mb::OpMax) acc = v > acc ? v : acc;
  }
  if (Op == mb::OpProd) {
    // 2^k wraps in narrow integers exactly as the kernels' products do.
    return (T)(unsigned long long)acc;
  }
  return mb::fromLL<T>(acc);
}

template <>
__device__ __forceinline__ __half expected<__half, mb::OpProd>(uint64_t i, uint32_t n, uint32_t seed) {
  long long acc = 1;
  for (uint32_t r = 0; r < n; r++) acc *= input<__half, mb::OpProd>(i, r, n, seed);
  return __float2half((float)acc);
}
template <>
__device__ __forceinline__ __nv_bfloat16 expected<__nv_bfloat16, mb::OpProd>(uint64_t i, uint32_t n, uint32_t seed) {
  long long acc = 1;
  for (uint32_t r = 0; r < n; r++) acc *= input<__nv_bfloat16, mb::OpProd>(i, r, n, seed);
  return __float2bfloat16((float)acc);
}

__device__ __forceinline__ void addWrong(unsigned long long* wrong, unsigned long long mine) {
  // one atomic per warp
  for (int o = 16; o > 0; o /= 2) mine += __shfl_down_sync(0xffffffffu, mine, o);
  if ((threadIdx.x & 31) == 0 && mine) atomicAdd(wrong, mine);
}

// Byte pattern for data that is only moved: 7-bit values, so never the 0xff poison.
__device__ __forceinline__ uint8_t patternByte(uint64_t i, uint32_t r, uint32_t seed) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + (uint64_t)r * 0xBF58476D1CE4E5B9ull + (uint64_t)seed * 0x94D049BB133111EBull;
  x ^= x >> 29;
  return (uint8_t)((x >> 17) & 0x7f);
}

}  // namespace

#define MB_FILL_CHECK(name, T, opname, OP)                                                                    \
  extern "C" __global__ void fill_##name##_##opname(T* buf, uint64_t count, uint32_t rank, uint32_t nranks,     \
                                                    uint32_t seed) {                                           \
    for (uint64_t i = gtid(); i < count; i += gthreads()) buf[i] = mb::fromLL<T>(input<T, OP>(i, rank, nranks, seed)); \
  }                                                                                                            \
  extern "C" __global__ void check_##name##_##opname(const T* buf, uint64_t count, uint64_t first, uint32_t nranks, \
                                                     uint32_t seed, unsigned long long* wrong) {               \
    unsigned long long bad = 0;                                                                                \
    for (uint64_t i = gtid(); i < count; i += gthreads()) {                                                    \
      if (!(mb::toDouble<T>(buf[i]) == mb::toDouble<T>(expected<T, OP>(first + i, nranks, seed)))) bad++;    \
    }                                                                                                          \
    addWrong(wrong, bad);                                                                                      \
  }

#define MB_FILL_CHECK_ALL_OPS(name, T) MB_FOR_EACH_OP(MB_FILL_CHECK, name, T)
MB_FOR_EACH_TYPE(MB_FILL_CHECK_ALL_OPS)

// fill_pattern writes rank r's byte pattern (7-bit values) into bytes of buf.
extern "C" __global__ void fill_pattern(uint8_t* buf, uint64_t bytes, uint32_t rank, uint32_t seed) {
  for (uint64_t i = gtid(); i < bytes; i += gthreads()) buf[i] = patternByte(i, rank, seed);
}

// check_pattern counts elements of eltSize bytes in nchunks consecutive chunks of chunkBytes
// where chunk c must hold rank (firstRank + c)'s pattern.
extern "C" __global__ void check_pattern(const uint8_t* buf, uint64_t chunkBytes, uint32_t nchunks,
                                         uint32_t firstRank, uint32_t seed, uint32_t eltSize,
                                         unsigned long long* wrong) {
  unsigned long long bad = 0;
  uint64_t elts = chunkBytes / eltSize;
  uint64_t total = elts * nchunks;
  for (uint64_t e = gtid(); e < total; e += gthreads()) {
    uint64_t c = e / elts, j = (e % elts) * eltSize;
    const uint8_t* p = buf + c * chunkBytes + j;
    bool ok = true;
    for (uint32_t b = 0; b < eltSize; b++) ok &= (p[b] == patternByte(j + b, firstRank + (uint32_t)c, seed));
    if (!ok) bad++;
  }
  addWrong(wrong, bad);
}

// poison fills bytes of buf with 0xff.
extern "C" __global__ void poison(uint8_t* buf, uint64_t bytes) {
  uint64_t n16 = ((reinterpret_cast<uintptr_t>(buf) & 15) == 0) ? bytes / 16 : 0;
  int4 v = make_int4(-1, -1, -1, -1);
  for (uint64_t i = gtid(); i < n16; i += gthreads()) reinterpret_cast<int4*>(buf)[i] = v;
  for (uint64_t i = n16 * 16 + gtid(); i < bytes; i += gthreads()) buf[i] = 0xff;
}

// ---- repeatability (--repeat-check; harness/repeat.go) --------------------------------

// mixedBits is element i of rank r's order-sensitive input, as 64 random bits
// (collectives.MixedBits is the same formula).
__device__ __forceinline__ uint64_t mixedBits(uint64_t i, uint32_t r, uint32_t seed) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + ((uint64_t)r + 1) * 0xBF58476D1CE4E5B9ull + (uint64_t)seed * 0x94D049BB133111EBull;
  x ^= x >> 31;
  x *= 0xD6E8FEB86659FD93ull;
  x ^= x >> 32;
  return x;
}

// MixedExp is the largest binary exponent of a type's mixed inputs: float sums then round
// away low bits of the smaller terms, so that (a+b)+c != a+(b+c); half's range keeps sums
// of many ranks finite.
template <typename T>
struct MixedExp {
  static constexpr int value = 0;  // integers: the bits themselves
};
template <>
struct MixedExp<float> {
  static constexpr int value = 24;
};
template <>
struct MixedExp<double> {
  static constexpr int value = 60;
};
template <>
struct MixedExp<__half> {
  static constexpr int value = 7;
};
template <>
struct MixedExp<__nv_bfloat16> {
  static constexpr int value = 24;
};

// mixedValue turns mixedBits into a value: for floating-point types +-(1 + m/1024) * 2^e
// with e in [-E, E] (collectives.MixedFloat); for integers the low bits.
template <typename T>
__device__ __forceinline__ T mixedValue(uint64_t x) {
  constexpr int E = MixedExp<T>::value;
  if (E == 0) return (T)x;
  const double m = 1.0 + (double)(x & 1023) / 1024.0;
  const int e = (int)((x >> 10) % (uint64_t)(2 * E + 1)) - E;
  const double v = ((x >> 20) & 1) ? -ldexp(m, e) : ldexp(m, e);
  return (T)v;
}
template <>
__device__ __forceinline__ __half mixedValue<__half>(uint64_t x) {
  constexpr int E = MixedExp<__half>::value;
  const float m = 1.0f + (float)(x & 1023) / 1024.0f;
  const int e = (int)((x >> 10) % (uint64_t)(2 * E + 1)) - E;
  return __float2half(((x >> 20) & 1) ? -ldexpf(m, e) : ldexpf(m, e));
}
template <>
__device__ __forceinline__ __nv_bfloat16 mixedValue<__nv_bfloat16>(uint64_t x) {
  constexpr int E = MixedExp<__nv_bfloat16>::value;
  const float m = 1.0f + (float)(x & 1023) / 1024.0f;
  const int e = (int)((x >> 10) % (uint64_t)(2 * E + 1)) - E;
  return __float2bfloat16(((x >> 20) & 1) ? -ldexpf(m, e) : ldexpf(m, e));
}

// fill_mixed_<type>_<op>: rank's order-sensitive input (the same for every operator).
#define MB_FILL_MIXED(name, T, opname, OP)                                                                     \
  extern "C" __global__ void fill_mixed_##name##_##opname(T* buf, uint64_t count, uint32_t rank, uint32_t nranks, \
                                                          uint32_t seed) {                                     \
    for (uint64_t i = gtid(); i < count; i += gthreads()) buf[i] = mixedValue<T>(mixedBits(i, rank, seed));   \
  }
#define MB_FILL_MIXED_ALL_OPS(name, T) MB_FOR_EACH_OP(MB_FILL_MIXED, name, T)
MB_FOR_EACH_TYPE(MB_FILL_MIXED_ALL_OPS)

// repeat_compare lowers *first to (iter << 40 | element) for the first element of eltSize
// bytes at out that differs from saved (first is all ones while none does).
extern "C" __global__ void repeat_compare(const uint8_t* out, const uint8_t* saved, uint64_t bytes, uint32_t eltSize,
                                          uint64_t iter, unsigned long long* first) {
  unsigned long long mine = ~0ull;
  for (uint64_t i = gtid(); i < bytes; i += gthreads()) {
    if (out[i] != saved[i]) {
      const unsigned long long key = (iter << 40) | (i / eltSize);
      mine = key < mine ? key : mine;
    }
  }
  for (int o = 16; o > 0; o /= 2) {
    const unsigned long long other = __shfl_down_sync(0xffffffffu, mine, o);
    mine = other < mine ? other : mine;
  }
  if ((threadIdx.x & 31) == 0 && mine != ~0ull) atomicMin(first, mine);
}

// hashMix is splitmix64's finalizer.
__device__ __forceinline__ uint64_t hashMix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

// repeat_hash adds to *hash a sum over bytes of buf of a mix of (index, value): the same
// whatever the grid, so ranks compare their outputs by 8 bytes (collectives.RepeatHash).
extern "C" __global__ void repeat_hash(const uint8_t* buf, uint64_t bytes, unsigned long long* hash) {
  unsigned long long mine = 0;
  for (uint64_t i = gtid(); i < bytes; i += gthreads()) mine += hashMix(i * 256 + buf[i]);
  for (int o = 16; o > 0; o /= 2) mine += __shfl_down_sync(0xffffffffu, mine, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(hash, mine);
}
