// reduce_ll.cu: reduce with LL16 packets (host side: reduce_ll.go), instantiated
// for every element type and operator.
//
// Scratch: the credit area (ll_device.cuh), then kLLSlots slots of nranks buffers' packets,
// launch f using slot f % kLLSlots. Each block of every rank but the root waits until the
// root has credited the last use of this launch's slot, then writes its share of the input
// as packets into buffer `rank` of that slot of the root's scratch. The root reduces each
// packet unit in rank order (its own input for its own rank), so the result is the same bit
// for bit as the other algorithms', and stores it; the other ranks' outputs are left alone.
// Then each block of every rank credits every peer on its own (ll_device.cuh).
//
// In place (in == out at the root), reduceSlots reads each unit of my input before it stores it.
#include "mscclpp/ll_device.cuh"

using namespace mb;

// chans[npeers] reach the peers' scratch, in rank order without me; count elements.
template <typename T, int Op>
__device__ void reduceLL16(MemoryChannelHandle* chans, const char* scratch, uint64_t slotBytes, const char* in,
                           char* out, uint64_t count, uint32_t root, uint32_t rank, uint32_t nranks,
                           LaunchState* state) {
  using P = LL16;
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  if (llCreditGridFits(rank)) {
    const uint64_t slot = llSlotOffset(flag, nranks, nranks * slotBytes);
    const uint64_t bytes = count * sizeof(T);
    const uint32_t tid = (uint32_t)globalThread(), nth = (uint32_t)globalThreads();
    if (rank != root) {
      const uint32_t c = peerIndex(root, rank);
      waitCredits(scratch, chans, c, 1, rank, flag);
      putPackets<P>(reinterpret_cast<char*>(chans[c].remote) + slot + rank * slotBytes, in, bytes, flag, tid, nth);
    } else {
      reduceSlots<T, Op>(out, in, bytes, scratch + slot, slotBytes, flag, rank, nranks, chans);
    }
    sendCredits(chans, npeers, rank, flag);
  }
  finishLaunch(state, flag);
}

#define REDUCE_LL_KERNELS(name, T, opname, OP)                                                                   \
  extern "C" __global__ void __launch_bounds__(1024) reduce_ll16_##name##_##opname(                              \
      MemoryChannelHandle* chans, const char* scratch, uint64_t slotBytes, const char* in, char* out,            \
      uint64_t count, uint32_t root, uint32_t rank, uint32_t nranks, LaunchState* state) {                      \
    reduceLL16<T, OP>(chans, scratch, slotBytes, in, out, count, root, rank, nranks, state);                     \
  }

#define REDUCE_LL_ALL_OPS(name, T) MB_FOR_EACH_OP(REDUCE_LL_KERNELS, name, T)
MB_FOR_EACH_TYPE(REDUCE_LL_ALL_OPS)
