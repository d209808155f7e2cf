// ll_device.cuh: what the LL-packet ("low-latency") collectives of alltoall_ll.cu,
// sendrecv_ll.cu, broadcast_ll.cu, reduce_ll.cu and reducescatter_ll.cu share: credits for
// one-way traffic, and the rank-ordered reduction of one packet unit.
//
// LL kernels need no barrier with their peers: the flag in each packet (the launch number,
// launchFlag) says when its data is there. What they must make sure of is that a packet slot
// is not overwritten before its reader has read it, over back-to-back launches and graph
// replays. Where every rank reads from every rank it writes to (all-to-all, reduce-scatter,
// all-gather), two halves picked by the launch parity are enough: a rank that writes launch
// f+2 into a half has finished launch f+1, so it has read its peers' packets of f+1, so the
// peers have finished launch f and read everything of f. Where the traffic goes one way
// (broadcast: root to the others; reduce: the others to the root) the writer learns nothing
// from its reads, so every rank hands every peer a credit: once all its blocks are done
// with launch f, it stores f in its credit word in each peer's scratch. Before writing
// launch f into a half, a writer waits until each rank it writes to has credited launch f-2
// or later (the last use of that half). Credits say "finished launch f", not "read your
// packets", so they stay right whichever rank is the root. In steady state the credit is
// long there, so the wait is one local load.
#ifndef MSCCLPP_BENCH_LL_DEVICE_CUH_
#define MSCCLPP_BENCH_LL_DEVICE_CUH_

#include "collective_device.cuh"

namespace mb {

// llCreditBytes is the credit area at the start of a scratch buffer that takes credits:
// one 32-bit word per rank, rounded up to 256 bytes (collectives' llCreditBytes mirrors it).
MB_DEVICE uint64_t llCreditBytes(uint32_t nranks) { return ((uint64_t)nranks * 4 + 255) / 256 * 256; }

MB_DEVICE uint32_t loadAcquireSys32(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

MB_DEVICE void storeReleaseSys32(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// waitCredit: the calling thread waits until rank `from` has credited launch flag-2 or
// later in my scratch's credit area (its first launches need no credit: the halves are
// fresh). Words count launches and wrap, so they are compared as a signed difference.
MB_DEVICE void waitCredit(const char* scratch, uint32_t from, uint32_t flag, uint32_t channel) {
  const uint32_t* w = reinterpret_cast<const uint32_t*>(scratch) + from;
  const uint32_t need = flag - 2;
  SpinGuard g;
  while ((int32_t)(loadAcquireSys32(w) - need) < 0) {
    if (g.expired(DEVERR_SEMAPHORE_WAIT, from, channel)) break;
  }
}

// sendCredit tells the owner of c's scratch that I (rank me) have finished launch flag.
// Release: my reads of packets come before the credit.
MB_DEVICE void sendCredit(const MemoryChannelHandle& c, uint32_t me, uint32_t flag) {
  storeReleaseSys32(reinterpret_cast<uint32_t*>(c.remote) + me, flag);
}

// allBlocksDone returns true in one block (every thread), once every block has got there,
// with what every block did before it ordered before what that block does after. One block
// needs only its own barrier.
MB_DEVICE bool allBlocksDone(LaunchState* st) {
  if (gridDim.x == 1) {
    __syncthreads();
    return true;
  }
  const bool last = lastBlock(st);
  if (last) __threadfence();
  return last;
}

// llPeerIndex is rank q's index in a channel array to every peer in rank order without me.
MB_DEVICE uint32_t llPeerIndex(uint32_t q, uint32_t rank) { return q < rank ? q : q - 1; }

// reduceSlots stores at out the reduction in rank order (rank 0's value first) of `bytes`:
// my own from mine, each peer r's from the LL16 packets it wrote at packets + r*slotBytes.
// Every thread of the grid takes packet units; a thread reads unit u of mine before it
// stores unit u of out, so out may be mine (in place). Used where each rank sends whole
// slots of packets and the receiver reduces them (reduce_ll.cu, reducescatter_ll.cu).
template <typename T, int Op>
MB_DEVICE void reduceSlots(char* out, const char* mine, uint64_t bytes, const char* packets, uint64_t slotBytes,
                           uint32_t flag, uint32_t rank, uint32_t nranks, const MemoryChannelHandle* chans) {
  using P = LL16;
  const uint64_t units = (bytes + P::kDataBytes - 1) / P::kDataBytes;
  for (uint64_t u = globalThread(); u < units; u += globalThreads()) {
    const uint64_t off = u * P::kDataBytes;
    const uint32_t valid = (uint32_t)min((uint64_t)P::kDataBytes, bytes - off);
    P::Payload acc;
    for (uint32_t r = 0; r < nranks; r++) {
      P::Payload v;
      if (r == rank) {
        v = loadPayload<P>(mine + off, valid);
      } else {
        v = readPacket<P>(packets + r * slotBytes + u * P::kPacketBytes, flag, r, chans[llPeerIndex(r, rank)].index);
      }
      acc = r == 0 ? v : applyWord<T, Op>(acc, v);
    }
    storePayload<P>(out + off, finishWord<T, Op>(acc, nranks), valid);
  }
}

}  // namespace mb

#endif  // MSCCLPP_BENCH_LL_DEVICE_CUH_
