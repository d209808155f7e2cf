// allgather_hostput.cu: all-gather of small messages between ranks that are all connected
// over a network transport (host side: allgather_hostput.go), with both ends
// of every put in host-resident memory (channels.Mesh.ShareHost), so that no CUDA call is
// on the proxy's or the receiver's path.
//
// Block 0 copies my chunk into half (flag & 1) of my host-resident outbox and fences at
// system scope; thread i then puts (hostSend), with a signal, that outbox half into slot
// `rank` of half (flag & 1) of peer i's host-resident scratch. Block 0 waits for every
// peer's slot and opens the gate; every thread of every block fences at system scope
// (hostGate) and copies its share of the peers' slots into my output, reading them with
// ld.global.cv (loadFresh), and of my own chunk from my input (in place it is already
// there). The order that makes the slots' bytes visible, and why no stale line can be
// read, is allreduce_hostoneshot.cu's.
//
// As allgather portput's launches of half size, no handshake between launches and no
// flush: launch k writes half k%2 of the peer's scratch only after my launch k-1 received
// the peer's data of launch k-1, which it sent once its launch k-2 (the last to read half
// k%2) had ended; and my outbox half k%2, last sent by launch k-2, had been read by my
// proxy before any peer's launch k-1 started. One signal per launch: each launch waits for
// E+1 and the last block advances E.
#include "mscclpp/host_resident_device.cuh"

using namespace mb;

extern "C" __global__ void __launch_bounds__(1024)
    allgather_hostput(PortChannelHandle* chans, char* outbox, const char* scratch, uint64_t slotBytes, const char* in,
                      char* out, uint64_t chunk, uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  const uint64_t half = (flag & 1) * nranks * slotBytes;
  const uint64_t box = (flag & 1) * slotBytes;
  if (blockIdx.x == 0) hostSend(chans, npeers, outbox, box, in, chunk, half + rank * slotBytes);
  hostGate(state, flag, chans, npeers, 1);
  const Range share = split(chunk, gridDim.x, blockIdx.x, 16);
  for (uint32_t r = 0; r < nranks; r++) {
    char* dst = out + r * chunk + share.begin;
    if (r != rank) {
      copyFresh(dst, scratch + half + r * slotBytes + share.begin, share.size(), threadIdx.x, blockDim.x);
    } else if (in != out + r * chunk) {
      copy(dst, in + share.begin, share.size(), threadIdx.x, blockDim.x);
    }
  }
  if (lastBlock(state) && threadIdx.x < npeers) {
    *reinterpret_cast<volatile uint64_t*>(chans[threadIdx.x].sem.expected) += 1;
  }
  finishLaunch(state, flag);
}
