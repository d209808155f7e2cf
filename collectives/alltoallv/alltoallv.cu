// alltoallv.cu: nccl-tests' alltoallv over memory channels (host side:
// alltoallv_*.go).
//
// Rank i sends rank j peerBytes(i, j) bytes: nccl-tests' distance-weighted pattern at its
// default spread, computed with the same floating-point operations as the host
// (collectives.AlltoallvPeerBytes: a product of integers below 2^53, so exact, and one
// correctly rounded division), so both sides agree to the byte. A rank's input is its
// segments for ranks 0, 1, ... one after the other; its output the segments it receives
// from ranks 0, 1, ...
//
// Every rank reads its segment of every peer's input (chans reach the peers' inputs) into
// its output, after a start barrier (the peers' inputs are ready) and before an end barrier
// (no peer reuses its input while another may still read it). In place, input and output
// are the same bytes, and a segment written there could overwrite one a peer has not read
// yet; so the input is first copied into a scratch buffer (chans then reach the peers'
// scratch), and the last block of the grid to finish that copy meets the peers
// (gridStartBarrier), so that every block's copy is visible before any peer reads it.
#include "mscclpp/collective_device.cuh"

using namespace mb;

namespace {

// peerBytes is the bytes rank from sends rank to, of total bytes in all.
__device__ __forceinline__ uint64_t peerBytes(uint32_t from, uint32_t to, uint32_t nranks, uint64_t total) {
  if (nranks == 1) return total & ~(uint64_t)15;
  const uint32_t distance = (to + nranks - from) % nranks;
  const uint64_t sum = (uint64_t)nranks * (nranks - 1) / 2;
  const double bytes = __ddiv_rn(__dmul_rn((double)distance, (double)total), (double)sum);
  return (uint64_t)bytes & ~(uint64_t)15;
}

}  // namespace

// alltoallv_read: srcOff is where the peers' inputs start in the buffers chans reach (out
// of place: the inputs' offset, the same on every rank; in place: 0, their scratch).
// sendBytes is my input's size (the sum of my segments).
extern "C" __global__ void __launch_bounds__(1024, 1)
    alltoallv_read(MemoryChannelHandle* chans, const char* in, char* out, char* scratch, uint64_t srcOff,
                   uint64_t total, uint64_t sendBytes, uint32_t rank, uint32_t nranks, uint32_t inPlace,
                   LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  const char* local = in;  // my own segment's source
  if (inPlace) {
    copy(scratch, in, sendBytes, globalThread(), globalThreads());
    gridStartBarrier(state, flag, chans, npeers);
    local = scratch;
  } else {
    startBarrier(state, flag, chans, npeers);
  }
  uint64_t dst = 0;  // where the segment from rank q starts in my output
  for (uint32_t q = 0; q < nranks; q++) {
    const uint64_t bytes = peerBytes(q, rank, nranks, total);
    uint64_t at = 0;  // where it starts in rank q's input
    for (uint32_t k = 0; k < rank; k++) at += peerBytes(q, k, nranks, total);
    const char* src = q == rank ? local
                                : reinterpret_cast<const char*>(chans[peerIndex(q, rank)].remote) + srcOff;
    const Range blk = split(bytes, gridDim.x, blockIdx.x, 16);
    copy(out + dst + blk.begin, src + at + blk.begin, blk.size(), threadIdx.x, blockDim.x);
    dst += bytes;
  }
  endBarrier(state, chans, npeers);
  finishLaunch(state, flag);
}
