// alltoall_ll.cu: all-to-all with LL16 packets (host side: alltoall_ll.go).
//
// Chunk q of my input goes, as packets, into slot `rank` of peer q's scratch (the half
// picked by the launch parity); my own chunk is copied locally; then chunk q of my output is
// unpacked from slot q of my scratch. No barrier: the flag says when data is there, and as
// every rank reads from every rank it writes to, the two halves keep a fast rank from
// overwriting packets a slow one has not read (ll_device.cuh).
//
// In place (in == out), a thread unpacks exactly the units of chunk q that it packed from
// chunk q before, so it reads each of my input's bytes before it overwrites them.
#include "mscclpp/ll_device.cuh"

using namespace mb;

extern "C" __global__ void __launch_bounds__(1024) alltoall_ll16(MemoryChannelHandle* chans, const char* scratch,
                                                                 uint64_t slotBytes, const char* in, char* out,
                                                                 uint64_t chunk, uint32_t rank, uint32_t nranks,
                                                                 LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  const uint64_t half = (uint64_t)(flag & 1) * nranks * slotBytes;
  const uint32_t tid = (uint32_t)globalThread(), nth = (uint32_t)globalThreads();
  for (uint32_t j = 0; j < npeers; j++) {
    const uint32_t i = (j + rank) % npeers;  // ranks start with different peers
    const uint64_t q = peerRank(i, rank);
    char* dst = reinterpret_cast<char*>(chans[i].remote) + half + rank * slotBytes;
    putPackets<LL16>(dst, in + q * chunk, chunk, flag, tid, nth);
  }
  const uint64_t own = (uint64_t)rank * chunk;
  if (in != out) copy(out + own, in + own, chunk, tid, nth);
  for (uint32_t j = 0; j < npeers; j++) {
    const uint32_t i = (j + rank) % npeers;
    const uint64_t q = peerRank(i, rank);
    unpackPackets<LL16>(out + q * chunk, scratch + half + q * slotBytes, chunk, flag, tid, nth, q, chans[i].index);
  }
  finishLaunch(state, flag);
}
