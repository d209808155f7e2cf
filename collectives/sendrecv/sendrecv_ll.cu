// sendrecv_ll.cu: send to the next rank and receive from the previous one with LL16 packets
// (host side: sendrecv_ll.go).
//
// My buffer goes, as packets, into buffer flag % K of the next rank's scratch, and the
// previous rank's packets are unpacked from buffer flag % K of mine; K = max(nranks, 2). No
// barrier and no credit: the ring itself bounds how far a rank runs ahead. A rank that
// finished launch f has read the previous rank's packets of f, so that rank had finished
// f-1; going back round the ring, the next rank (nranks-1 steps back) had finished
// f-nranks+1. So when I write launch f+1, the next rank has read every launch up to
// f+1-K, the last one that used this buffer, and K buffers are enough.
//
// In place (in == out), a thread unpacks exactly the units it packed before, so it reads
// each of my input's bytes before it overwrites them.
#include "mscclpp/ll_device.cuh"

using namespace mb;

extern "C" __global__ void __launch_bounds__(1024) sendrecv_ll16(MemoryChannelHandle* chans, const char* scratch,
                                                                 uint64_t slotBytes, const char* in, char* out,
                                                                 uint64_t bytes, uint32_t rank, uint32_t nranks,
                                                                 LaunchState* state) {
  const uint32_t flag = launchFlag(state);
  const uint64_t buf = (uint64_t)(flag % max(nranks, 2u)) * slotBytes;
  const uint32_t tid = (uint32_t)globalThread(), nth = (uint32_t)globalThreads();
  const MemoryChannelHandle& next = chans[peerIndex((rank + 1) % nranks, rank)];
  const MemoryChannelHandle& prev = chans[peerIndex((rank + nranks - 1) % nranks, rank)];
  putPackets<LL16>(reinterpret_cast<char*>(next.remote) + buf, in, bytes, flag, tid, nth);
  unpackPackets<LL16>(out, scratch + buf, bytes, flag, tid, nth, prev.peer, prev.index);
  finishLaunch(state, flag);
}
