// broadcast.cu: broadcast kernels (host side: broadcast_*.go). Every rank's
// output receives the root's input.
#include "mscclpp/rooted_device.cuh"

using namespace mb;

// ---- Read from the root over memory channels --------------------------------------------
// chans[npeers] reach the peers' inputs (in place: their output buffers), in rank order
// without me. The root meets every peer at the start (its input is ready) and at the end
// (no peer still reads it); a non-root rank meets the root alone, then each of its blocks
// copies its share of the root's input at rootInOff into my output over NVLink. Out of place
// the root copies its input into its own output; in place both are the same bytes.
extern "C" __global__ void __launch_bounds__(1024, 1)
    broadcast_read(MemoryChannelHandle* chans, const char* in, char* out, uint64_t rootInOff, uint64_t bytes,
                   uint32_t root, uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t flag = launchFlag(state);
  const RootMeet meet = rootMeet(chans, root, rank, nranks);
  startBarrier(state, flag, meet.chans, meet.n);
  Range blk = split(bytes, gridDim.x, blockIdx.x, 16);
  const char* src = rank == root ? in : reinterpret_cast<const char*>(meet.chans[0].remote) + rootInOff;
  if (src != out) copy(out + blk.begin, src + blk.begin, blk.size(), threadIdx.x, blockDim.x);
  endBarrier(state, meet.chans, meet.n);
  finishLaunch(state, flag);
}
