// gather.cu: gather kernels (host side: gather_*.go). Slot r of the root's
// output receives rank r's input; the other ranks' outputs are left alone.
#include "mscclpp/rooted_device.cuh"

using namespace mb;

// ---- The root reads every rank's input over memory channels ----------------------------
// chans[npeers] reach the peers' inputs (in place: their output buffers), in rank order
// without me; rank q's input is at inOff + q*inStride there (inStride: 0 out of place, the
// slot size in place, where rank q's input is slot q of its output). The root meets every
// peer at the start (their inputs are ready) and at the end (no peer reuses its input while
// the root may still read it); a non-root rank only meets the root. Each of the root's
// blocks copies its share of every slot, blocks starting at different ranks so that the
// peers are read at once. In place the root's own input is already in its slot.
extern "C" __global__ void __launch_bounds__(1024, 1)
    gather_read(MemoryChannelHandle* chans, const char* in, char* out, uint64_t inOff, uint64_t inStride,
                uint64_t bytes, uint32_t root, uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t flag = launchFlag(state);
  const RootMeet meet = rootMeet(chans, root, rank, nranks);
  startBarrier(state, flag, meet.chans, meet.n);
  if (rank == root) {
    const Range blk = split(bytes, gridDim.x, blockIdx.x, 16);
    for (uint32_t j = 0; j < nranks; j++) {
      const uint32_t q = (j + rank + blockIdx.x) % nranks;
      const char* src = q == rank ? in
                                  : reinterpret_cast<const char*>(chans[peerIndex(q, rank)].remote) + inOff +
                                        (uint64_t)q * inStride;
      char* dst = out + (uint64_t)q * bytes;
      if (src != dst) copy(dst + blk.begin, src + blk.begin, blk.size(), threadIdx.x, blockDim.x);
    }
  }
  endBarrier(state, meet.chans, meet.n);
  finishLaunch(state, flag);
}
