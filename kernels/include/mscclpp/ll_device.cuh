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
// peers have finished launch f and read everything of f.
//
// Where the traffic goes one way (broadcast: root to the others; reduce: the others to the
// root) the writer learns nothing from its reads, so ranks hand each other credits, and the
// scratch rotates through kLLSlots slots (launch f uses slot f % kLLSlots), so that a writer
// may run up to kLLSlots launches ahead of a reader and the credits' trip back is hidden.
// Each rank's scratch starts with a credit area: a row of kLLCreditSlots words per rank.
// When block b of a rank has finished launch f, it stores f into words b, b+grid, b+2*grid,
// ... of its row in every peer's credit area: no step across blocks. Before writing launch
// f into a slot, every block of a writer waits (one thread per word) until every word of
// the row of each rank it writes to says f-kLLSlots or later (the slot's last use). That is
// enough whatever the grids were: a word that says g >= f-kLLSlots was stored by a block
// that finished launch g, so, the launches of a rank being ordered, every launch before g
// had ended; and if g is f-kLLSlots itself, the block that stored it was the word's owner in
// that launch, and every block of that launch (grid <= kLLCreditSlots) owns a word. Credits
// say "finished launch f", not "read your packets", so they stay right whichever rank is the
// root. Credits are relaxed stores, with no fence: a rank that read packets stores its
// credit only after every thread of the block has read its packets and checked their flags,
// so those reads have returned and a later write into the slot cannot change them (NCCL's
// LL receivers post their progress the same way); a rank that only wrote last read the
// scratch in an earlier launch, which ended before this one began. A release store per word
// cost the readers about 0.6 µs a launch (broadcast and reduce of 8 B on 2×H200: 2.29
// against 2.59 µs and 2.37 against 2.98). In steady state the credits are long there, so
// the wait is one local load per thread. The host caps the grid at kLLCreditSlots
// (collectives' llCreditGrid); a larger one is refused (llCreditGridFits).

#ifndef MSCCLPP_BENCH_LL_DEVICE_CUH_
#define MSCCLPP_BENCH_LL_DEVICE_CUH_

#include "collective_device.cuh"

namespace mb {

// kLLSlots is how many packet slots a kernel with credits rotates through; kLLCreditSlots
// is the credit words per rank, and the largest grid of such a kernel. collectives' llSlots
// and llCreditSlots mirror them (a test compares).
constexpr uint32_t kLLSlots = 4;
constexpr uint32_t kLLCreditSlots = 128;

// llCreditBytes is the credit area at the start of a scratch buffer that takes credits:
// a row of kLLCreditSlots 32-bit words per rank, rounded up to 256 bytes (collectives'
// llCreditBytes mirrors it).
MB_DEVICE uint64_t llCreditBytes(uint32_t nranks) {
  return ((uint64_t)nranks * kLLCreditSlots * 4 + 255) / 256 * 256;
}

// llSlotOffset is the offset in a scratch with credits of launch flag's slot, each slot
// being slotBytes.
MB_DEVICE uint64_t llSlotOffset(uint32_t flag, uint32_t nranks, uint64_t slotBytes) {
  return llCreditBytes(nranks) + (uint64_t)(flag % kLLSlots) * slotBytes;
}

// llCreditGridFits says whether the grid fits the credit rows; if not, one thread records
// DEVERR_BAD_ARGUMENT, and the kernel must do nothing but finish its launch.
MB_DEVICE bool llCreditGridFits(uint32_t rank) {
  if (gridDim.x <= kLLCreditSlots) return true;
  if (blockIdx.x == 0 && threadIdx.x == 0) recordError(DEVERR_BAD_ARGUMENT, rank, 0);
  return false;
}

// waitCredits: the block waits until the ranks of channels chans[first..first+n) have
// credited, in every word of their rows in my scratch's credit area, launch
// flag-kLLSlots or later (the first kLLSlots launches need none: the slots are fresh).
// Words count launches and wrap, so they are compared as a signed difference. Every thread
// calls it.
MB_DEVICE void waitCredits(const char* scratch, const MemoryChannelHandle* chans, uint32_t first, uint32_t n,
                           uint32_t rank, uint32_t flag) {
  const uint32_t need = flag - kLLSlots;
  for (uint32_t i = threadIdx.x; i < n * kLLCreditSlots; i += blockDim.x) {
    const uint32_t j = first + i / kLLCreditSlots;
    const uint32_t q = peerRank(j, rank);
    const uint32_t* w = reinterpret_cast<const uint32_t*>(scratch) + q * kLLCreditSlots + i % kLLCreditSlots;
    SpinGuard g;
    while ((int32_t)(loadAcquireSys(w) - need) < 0) {
      if (g.expired(DEVERR_SEMAPHORE_WAIT, q, chans[j].index)) break;
    }
  }
  __syncthreads();
}

// sendCredits tells every peer that this block of mine (rank me) has finished launch flag:
// it stores flag, relaxed (see above), in words blockIdx.x, +gridDim.x, ... of my row in
// each peer's credit area. Every thread calls it, after the block's work.
MB_DEVICE void sendCredits(const MemoryChannelHandle* chans, uint32_t npeers, uint32_t me, uint32_t flag) {
  __syncthreads();
  const uint32_t mine = (kLLCreditSlots - blockIdx.x + gridDim.x - 1) / gridDim.x;  // words of this block
  for (uint32_t i = threadIdx.x; i < npeers * mine; i += blockDim.x) {
    uint32_t* w = reinterpret_cast<uint32_t*>(chans[i / mine].remote) + me * kLLCreditSlots + blockIdx.x +
                  (i % mine) * gridDim.x;
    storeRelaxedSys(w, flag);
  }
}

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
        v = readPacket<P>(packets + r * slotBytes + u * P::kPacketBytes, flag, r, chans[peerIndex(r, rank)].index);
      }
      acc = r == 0 ? v : applyWord<T, Op>(acc, v);
    }
    storePayload<P>(out + off, finishWord<T, Op>(acc, nranks), valid);
  }
}

}  // namespace mb

#endif  // MSCCLPP_BENCH_LL_DEVICE_CUH_
