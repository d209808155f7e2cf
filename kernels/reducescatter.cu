// reducescatter.cu: reduce-scatter kernels (host side: collectives/reducescatter_*.go),
// instantiated for every element type and operator. Every rank's input holds nranks blocks
// of `count` elements; rank r's output is block r of every rank's input, reduced in rank
// order (rank 0's value first), so the result is the same whichever rank computes it.
// In place, rank r's output is block r of its own input.
#include "mscclpp/collective_device.cuh"

using namespace mb;

__device__ __forceinline__ uint32_t rsPeerIndex(uint32_t q, uint32_t rank) { return q < rank ? q : q - 1; }

// ---- Read and reduce over memory channels ----------------------------------------------
// After a start barrier (the peers' inputs are ready), each block reads its share of block
// `rank` of every rank's input over NVLink, reduces it with 16-byte vectors when the block
// size allows (element by element otherwise, and for a share's tail), and stores it in my
// output. An end barrier keeps my input alive until every peer has read its block of it.
template <typename T, int Op>
__device__ void reduceScatterRead(MemoryChannelHandle* chans, const char* in, char* out, uint64_t inOff,
                                  uint64_t count, uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  startBarrier(state, flag, chans, npeers);
  const uint64_t bytes = count * sizeof(T);
  const uint64_t mine = (uint64_t)rank * bytes;  // my block's offset in every rank's input
  Range blk = split(bytes, gridDim.x, blockIdx.x, 16);
  const uint64_t nvec = bytes % 16 == 0 ? blk.size() / 16 : 0;
  auto src = [&](uint32_t r) {
    return r == rank ? in + mine : reinterpret_cast<const char*>(chans[rsPeerIndex(r, rank)].remote) + inOff + mine;
  };
  for (uint64_t v = threadIdx.x; v < nvec; v += blockDim.x) {
    const uint64_t off = blk.begin + v * 16;
    int4 acc;
    for (uint32_t r = 0; r < nranks; r++) {
      int4 x = *reinterpret_cast<const int4*>(src(r) + off);
      acc = r == 0 ? x : applyWord<T, Op>(acc, x);
    }
    *reinterpret_cast<int4*>(out + off) = finishWord<T, Op>(acc, nranks);
  }
  const uint64_t tail = blk.begin + nvec * 16;
  const uint64_t nelem = (blk.end - tail) / sizeof(T);
  for (uint64_t e = threadIdx.x; e < nelem; e += blockDim.x) {
    const uint64_t off = tail + e * sizeof(T);
    T acc;
    for (uint32_t r = 0; r < nranks; r++) {
      T x = *reinterpret_cast<const T*>(src(r) + off);
      acc = r == 0 ? x : Apply<T, Op>::f(acc, x);
    }
    *reinterpret_cast<T*>(out + off) = finish<T, Op>(acc, nranks);
  }
  endBarrier(state, chans, npeers);
  finishLaunch(state, flag);
}

#define RS_KERNELS(name, T, opname, OP)                                                                          \
  extern "C" __global__ void __launch_bounds__(1024, 1) reducescatter_read_##name##_##opname(                   \
      MemoryChannelHandle* chans, const char* in, char* out, uint64_t inOff, uint64_t count, uint32_t rank,     \
      uint32_t nranks, LaunchState* state) {                                                                    \
    reduceScatterRead<T, OP>(chans, in, out, inOff, count, rank, nranks, state);                                \
  }

#define RS_ALL_OPS(name, T) MB_FOR_EACH_OP(RS_KERNELS, name, T)
MB_FOR_EACH_TYPE(RS_ALL_OPS)
