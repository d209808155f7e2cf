// reduce.cu: reduce kernels (host side: collectives/reduce_*.go), instantiated for every
// element type and operator. The root's output is every rank's input reduced element by
// element in rank order (rank 0's value first); the other ranks' outputs are left alone.
#include "mscclpp/collective_device.cuh"

using namespace mb;

// ---- The root reads and reduces over memory channels -------------------------------------
// chans[npeers] reach the peers' inputs (in place: their output buffers), in rank order
// without me, each input at inOff. The root meets every peer at the start (their inputs are
// ready) and at the end (no peer reuses its input while the root may still read it); a
// non-root rank only meets the root. Each of the root's blocks reduces its share with
// 16-byte vectors when the size allows (element by element otherwise, and for a tail).
template <typename T, int Op>
__device__ void reduceRead(MemoryChannelHandle* chans, const char* in, char* out, uint64_t inOff, uint64_t count,
                           uint32_t root, uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t flag = launchFlag(state);
  const bool isRoot = rank == root;
  MemoryChannelHandle* meet = isRoot ? chans : chans + (root < rank ? root : root - 1);
  const uint32_t nmeet = isRoot ? nranks - 1 : 1;
  startBarrier(state, flag, meet, nmeet);
  if (isRoot) {
    const uint64_t bytes = count * sizeof(T);
    Range blk = split(bytes, gridDim.x, blockIdx.x, 16);
    const uint64_t nvec = bytes % 16 == 0 ? blk.size() / 16 : 0;
    auto src = [&](uint32_t r) {
      return r == rank ? in : reinterpret_cast<const char*>(chans[r < rank ? r : r - 1].remote) + inOff;
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
  }
  endBarrier(state, meet, nmeet);
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
