// reduce.cu: reduce kernels (host side: reduce_*.go), instantiated for every
// element type and operator. The root's output is every rank's input reduced element by
// element in rank order (rank 0's value first); the other ranks' outputs are left alone.
#include "mscclpp/rooted_device.cuh"

using namespace mb;

// ---- The root reads and reduces over memory channels -------------------------------------
// chans[npeers] reach the peers' inputs (in place: their output buffers), in rank order
// without me, each input at inOff. The root meets every peer at the start (their inputs are
// ready) and at the end (no peer reuses its input while the root may still read it); a
// non-root rank only meets the root. Each of the root's blocks reduces its share.
template <typename T, int Op>
__device__ void reduceRead(MemoryChannelHandle* chans, const char* in, char* out, uint64_t inOff, uint64_t count,
                           uint32_t root, uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t flag = launchFlag(state);
  const RootMeet meet = rootMeet(chans, root, rank, nranks);
  startBarrier(state, flag, meet.chans, meet.n);
  if (rank == root) {
    auto src = [&](uint32_t r) {
      return r == rank ? in : reinterpret_cast<const char*>(chans[peerIndex(r, rank)].remote) + inOff;
    };
    // the peers' buffers are allocations (256-byte aligned) at inOff
    const bool vec = ((reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out) | inOff) & 15) == 0;
    readReduce<T, Op>(src, out, count * sizeof(T), nranks, vec);
  }
  endBarrier(state, meet.chans, meet.n);
  finishLaunch(state, flag);
}

#define REDUCE_KERNELS(name, T, opname, OP)                                                                     \
  extern "C" __global__ void __launch_bounds__(1024, 1) reduce_read_##name##_##opname(                         \
      MemoryChannelHandle* chans, const char* in, char* out, uint64_t inOff, uint64_t count, uint32_t root,     \
      uint32_t rank, uint32_t nranks, LaunchState* state) {                                                     \
    reduceRead<T, OP>(chans, in, out, inOff, count, root, rank, nranks, state);                                 \
  }

#define REDUCE_ALL_OPS(name, T) MB_FOR_EACH_OP(REDUCE_KERNELS, name, T)
MB_FOR_EACH_TYPE(REDUCE_ALL_OPS)
