// rooted_device.cuh: what kernels that read their peers' buffers share: the handshake of
// rooted collectives (only the root meets everyone) and a block's share of a
// read-and-reduce over ranks.
#ifndef MSCCLPP_BENCH_ROOTED_DEVICE_CUH_
#define MSCCLPP_BENCH_ROOTED_DEVICE_CUH_

#include "collective_device.cuh"

namespace mb {

// RootMeet is the channels a rank of a rooted collective meets at its start and end
// barriers: every peer's at the root, the root's alone elsewhere.
struct RootMeet {
  MemoryChannelHandle* chans;
  uint32_t n;
};

MB_DEVICE RootMeet rootMeet(MemoryChannelHandle* chans, uint32_t root, uint32_t rank, uint32_t nranks) {
  if (rank == root) return RootMeet{chans, nranks - 1};
  return RootMeet{chans + peerIndex(root, rank), 1};
}

// readReduce: this block's share of `bytes` at out becomes the reduction, in rank order
// (rank 0's value first), of the same bytes at src(r) for every rank r, with 16-byte
// vectors when bytes allows and vec says every buffer is 16-byte aligned (element by element
// otherwise, and for a share's tail). Callers work vec out from their arguments, so that no
// channel handle is loaded before the data.
template <typename T, int Op, typename Src>
MB_DEVICE void readReduce(Src src, char* out, uint64_t bytes, uint32_t nranks, bool vec) {
  Range blk = split(bytes, gridDim.x, blockIdx.x, 16);
  const uint64_t nvec = bytes % 16 == 0 && vec ? blk.size() / 16 : 0;
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

}  // namespace mb

#endif  // MSCCLPP_BENCH_ROOTED_DEVICE_CUH_
