// allgather_hostoneshot.cu: all-gather of small messages between ranks that are all
// connected over a network transport (host side: allgather_hostoneshot.go), through
// host-resident buffers as allreduce's hostoneshot (allreduce_hostoneshot.cu, whose
// comment says why the reads and the halves need no more ordering): block 0 copies my
// chunk into half (flag & 1) of my host-resident outbox and meets at its barrier; thread i
// then puts it, with a signal, into slot `rank` of half (flag & 1) of peer i's
// host-resident scratch (hostSend). Block 0 waits for every peer's signal and opens the
// gate (hostGate); every block then copies its share of each rank's chunk into my output,
// mine from my input and the peers' from their slots.
//
// One launch, one signal per pair, none of the port-staged family's region and credit
// bookkeeping (host_staged.cu), which lets rooted collectives pipeline across launches
// and which an all-gather, where every rank sends every other, cannot use.
//
// In place my chunk is already at its place in my output: block 0 copies it into the
// outbox before the gate, and no block writes that part of the output.
#include "mscclpp/host_resident_device.cuh"

using namespace mb;

extern "C" __global__ void __launch_bounds__(1024)
    allgather_hostoneshot(PortChannelHandle* chans, char* outbox, const char* scratch, uint64_t slotBytes,
                          const char* in, char* out, uint64_t chunk, uint32_t rank, uint32_t nranks,
                          LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  const uint64_t half = (flag & 1) * nranks * slotBytes;
  const uint64_t box = (flag & 1) * slotBytes;
  if (blockIdx.x == 0) hostSend(chans, npeers, outbox, box, in, chunk, half + rank * slotBytes);
  hostGate(state, flag, chans, npeers, 1);
  for (uint32_t r = 0; r < nranks; r++) {
    char* dst = out + r * chunk;
    if (r == rank) {
      if (dst != in) copy(dst, in, chunk, globalThread(), globalThreads());
    } else {
      copyFresh(dst, scratch + half + r * slotBytes, chunk, globalThread(), globalThreads());
    }
  }
  finishPortLaunch(state, flag, chans, npeers);
}
