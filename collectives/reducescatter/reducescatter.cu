// reducescatter.cu: reduce-scatter kernels (host side: reducescatter_*.go),
// instantiated for every element type and operator. Every rank's input holds nranks blocks
// of `count` elements; rank r's output is block r of every rank's input, reduced in rank
// order (rank 0's value first), so the result is the same whichever rank computes it.
// In place, rank r's output is block r of its own input.
#include "mscclpp/rooted_device.cuh"

using namespace mb;

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
  auto src = [&](uint32_t r) {
    return r == rank ? in + mine : reinterpret_cast<const char*>(chans[peerIndex(r, rank)].remote) + inOff + mine;
  };
  // the peers' buffers are allocations (256-byte aligned) at inOff
  const bool vec = ((reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out) | inOff) & 15) == 0;
  readReduce<T, Op>(src, out, bytes, nranks, vec);
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
