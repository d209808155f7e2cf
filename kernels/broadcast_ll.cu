// broadcast_ll.cu: broadcast with LL16 packets (host side: collectives/broadcast_ll.go).
//
// Scratch: the credit area (ll_device.cuh), then two halves of one slot, picked by the launch
// parity. The root waits for every peer's credit for the last use of this launch's half,
// writes its input as packets into that half of every peer's scratch, and copies its input
// to its output (out of place). Every other rank unpacks the root's packets into its output.
// Once all its blocks are done, every rank credits every peer. No barrier: the root only
// waits when a peer is two launches behind.
#include "mscclpp/ll_device.cuh"

using namespace mb;

// chans[npeers] reach the peers' scratch, in rank order without me.
extern "C" __global__ void __launch_bounds__(1024)
    broadcast_ll16(MemoryChannelHandle* chans, const char* scratch, uint64_t slotBytes, const char* in, char* out,
                   uint64_t bytes, uint32_t root, uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  const uint64_t half = llCreditBytes(nranks) + (uint64_t)(flag & 1) * slotBytes;
  const uint32_t tid = (uint32_t)globalThread(), nth = (uint32_t)globalThreads();
  if (rank == root) {
    if (threadIdx.x < npeers) {
      const uint32_t q = threadIdx.x < rank ? threadIdx.x : threadIdx.x + 1;
      waitCredit(scratch, q, flag, chans[threadIdx.x].index);
    }
    __syncthreads();
    for (uint32_t j = 0; j < npeers; j++) {
      const uint32_t i = (j + blockIdx.x) % npeers;  // blocks start with different peers
      putPackets<LL16>(reinterpret_cast<char*>(chans[i].remote) + half, in, bytes, flag, tid, nth);
    }
    if (in != out) copy(out, in, bytes, tid, nth);
  } else {
    const MemoryChannelHandle& c = chans[llPeerIndex(root, rank)];
    unpackPackets<LL16>(out, scratch + half, bytes, flag, tid, nth, root, c.index);
  }
  if (allBlocksDone(state) && threadIdx.x < npeers) sendCredit(chans[threadIdx.x], rank, flag);
  finishLaunch(state, flag);
}
