// reducescatter_ll.cu: reduce-scatter with LL16 packets (host side:
// reducescatter_ll.go), instantiated for every element type and operator.
//
// Block c of my input goes, as packets, into slot `rank` of rank c's scratch (the half
// picked by the launch parity). I reduce each packet unit of my block in rank order (my own
// input for my rank, the peers' packets for theirs), so the result is the same bit for bit
// as the other algorithms', and store it. No barrier: every rank reads from every rank it
// writes to, so the two halves are enough (ll_device.cuh).
//
// In place my output is block `rank` of my input: reduceSlots reads each unit of it before it
// stores the same unit, and the packets I send come from the other blocks.
#include "mscclpp/ll_device.cuh"

using namespace mb;

// chans[npeers] reach the peers' scratch, in rank order without me; count elements per block.
template <typename T, int Op>
__device__ void reduceScatterLL16(MemoryChannelHandle* chans, const char* scratch, uint64_t slotBytes, const char* in,
                                  char* out, uint64_t count, uint32_t rank, uint32_t nranks, LaunchState* state) {
  using P = LL16;
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  const uint64_t half = (uint64_t)(flag & 1) * nranks * slotBytes;
  const uint64_t bytes = count * sizeof(T);
  const uint32_t tid = (uint32_t)globalThread(), nth = (uint32_t)globalThreads();
  for (uint32_t j = 0; j < npeers; j++) {
    const uint32_t i = (j + rank) % npeers;  // ranks start with different peers
    const uint64_t c = peerRank(i, rank);
    putPackets<P>(reinterpret_cast<char*>(chans[i].remote) + half + rank * slotBytes, in + c * bytes, bytes, flag, tid,
                  nth);
  }
  reduceSlots<T, Op>(out, in + (uint64_t)rank * bytes, bytes, scratch + half, slotBytes, flag, rank, nranks, chans);
  finishLaunch(state, flag);
}

#define RS_LL_KERNELS(name, T, opname, OP)                                                                       \
  extern "C" __global__ void __launch_bounds__(1024) reducescatter_ll16_##name##_##opname(                      \
      MemoryChannelHandle* chans, const char* scratch, uint64_t slotBytes, const char* in, char* out,            \
      uint64_t count, uint32_t rank, uint32_t nranks, LaunchState* state) {                                     \
    reduceScatterLL16<T, OP>(chans, scratch, slotBytes, in, out, count, rank, nranks, state);                    \
  }

#define RS_LL_ALL_OPS(name, T) MB_FOR_EACH_OP(RS_LL_KERNELS, name, T)
MB_FOR_EACH_TYPE(RS_LL_ALL_OPS)
