// allgather_blockput.cu: all-gather by SM puts where each block meets the peers' blocks of
// the same index alone (host side: allgather_blockput.go).
//
// Block b of every rank owns share b of every chunk and its own semaphore with every peer
// (channels [block][peer]). It signals the peers' block b and waits for theirs (the peers'
// launches have started, so stream order has finished their earlier use of their outputs),
// writes its share of my chunk into every peer's output slot `rank`, then signals again
// with release semantics and waits for the peers' block b: when every block has passed that
// wait, every peer's chunk has landed here. No block waits for another block of its own
// grid, so the handshakes of different blocks overlap with each other's copies.
#include "mscclpp/collective_device.cuh"

using namespace mb;

// Out of place, the last localBlocks blocks of the grid (0 in place) copy my chunk to my own
// output slot and meet nobody, so that copy runs beside the puts instead of after them;
// with none, the put blocks copy it after their puts.
extern "C" __global__ void __launch_bounds__(1024, 1)
    allgather_blockput(MemoryChannelHandle* outChans, const char* in, char* out, uint64_t outOff, uint64_t chunk,
                       uint32_t rank, uint32_t nranks, uint32_t localBlocks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  const uint32_t putBlocks = gridDim.x - localBlocks;
  char* own = out + rank * chunk;
  if (blockIdx.x >= putBlocks) {
    Range r = split(chunk, localBlocks, blockIdx.x - putBlocks, 16);
    if (own != in) copy(own + r.begin, in + r.begin, r.size(), threadIdx.x, blockDim.x);
    finishLaunch(state, flag);
    return;
  }
  MemoryChannelHandle* mine = outChans + (uint64_t)blockIdx.x * npeers;
  peerBarrier(mine, npeers, true);
  __syncthreads();
  Range r = split(chunk, putBlocks, blockIdx.x, 16);
  const uint64_t slot = outOff + rank * chunk;
  for (uint32_t i = 0; i < npeers; i++) {
    copy(reinterpret_cast<char*>(mine[i].remote) + slot + r.begin, in + r.begin, r.size(), threadIdx.x, blockDim.x);
  }
  if (localBlocks == 0 && own != in) copy(own + r.begin, in + r.begin, r.size(), threadIdx.x, blockDim.x);
  __syncthreads();
  peerBarrier(mine, npeers, false);
  finishLaunch(state, flag);
}
