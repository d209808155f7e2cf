// broadcast_ll.cu: broadcast with LL16 packets (host side: broadcast_ll.go).
//
// Scratch: the credit area (ll_device.cuh), then kLLSlots slots of one buffer's packets,
// launch f using slot f % kLLSlots. Each block of the root waits until every peer has
// credited the last use of this launch's slot, writes its share of the input as packets
// into that slot of every peer's scratch, and copies its share to its output (out of
// place). Every other rank unpacks the root's packets into its output. Then each block of
// every rank credits every peer on its own: no barrier and no step across blocks; the root
// only waits when a peer is kLLSlots launches behind.
#include "mscclpp/ll_device.cuh"

using namespace mb;

// chans[npeers] reach the peers' scratch, in rank order without me.
extern "C" __global__ void __launch_bounds__(1024)
    broadcast_ll16(MemoryChannelHandle* chans, const char* scratch, uint64_t slotBytes, const char* in, char* out,
                   uint64_t bytes, uint32_t root, uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  if (llCreditGridFits(rank)) {
    const uint64_t slot = llSlotOffset(flag, nranks, slotBytes);
    const uint32_t tid = (uint32_t)globalThread(), nth = (uint32_t)globalThreads();
    if (rank == root) {
      waitCredits(scratch, chans, 0, npeers, rank, flag);
      for (uint32_t j = 0; j < npeers; j++) {
        const uint32_t i = (j + blockIdx.x) % npeers;  // blocks start with different peers
        putPackets<LL16>(reinterpret_cast<char*>(chans[i].remote) + slot, in, bytes, flag, tid, nth);
      }
      if (in != out) copy(out, in, bytes, tid, nth);
    } else {
      const MemoryChannelHandle& c = chans[peerIndex(root, rank)];
      unpackPackets<LL16>(out, scratch + slot, bytes, flag, tid, nth, root, c.index);
    }
    sendCredits(chans, npeers, rank, flag);
  }
  finishLaunch(state, flag);
}
