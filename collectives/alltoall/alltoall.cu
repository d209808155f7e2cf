// alltoall.cu: all-to-all over memory channels (host side: alltoall_*.go).
//
// Every rank's buffer holds nranks chunks of `chunk` bytes: chunk q of rank r's input goes
// to chunk r of rank q's output. Block b of every rank owns share b of every chunk and has
// its own semaphore with every peer (channels [block][peer], to the peers' output buffers),
// so it meets only block b of the peers, as allgather_blockput does: no block waits for
// another block of its own grid.
//
// Out of place, block b signals the peers' block b and waits for theirs (the peers' launches
// have started, so stream order has finished their earlier use of their outputs), puts its
// share of chunk q of my input into chunk `rank` of peer q's output for every peer, then
// signals with release semantics and waits for the peers' block b: once every block has
// passed that wait, every peer's data has landed here. Other blocks copy my own chunk.
//
// In place (input and output are the same buffer, at the same offset on every rank), a put
// would overwrite data the peer has not sent yet. Instead the two ranks of a pair swap
// chunks: my chunk q and peer q's chunk `rank` trade places, the lower rank of the pair
// swapping the first half of the chunk and the higher rank the second half, so each element
// is read and written once and no two ranks touch the same bytes. The start handshake has
// acquire semantics there, since the peers' inputs are read.
#include "mscclpp/collective_device.cuh"

using namespace mb;

// alltoall_blockput: off is the buffers' offset (the same on every rank; in place in == out).
// Out of place, the last localBlocks blocks of the grid (0 in place) copy my own chunk and
// meet nobody, so that copy runs beside the puts instead of after them; with none, the put
// blocks copy it after their puts.
extern "C" __global__ void __launch_bounds__(1024, 1)
    alltoall_blockput(MemoryChannelHandle* chans, const char* in, char* out, uint64_t off, uint64_t chunk,
                      uint32_t rank, uint32_t nranks, uint32_t inPlace, uint32_t localBlocks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  const uint32_t putBlocks = gridDim.x - localBlocks;
  const uint64_t own = (uint64_t)rank * chunk;
  if (blockIdx.x >= putBlocks) {
    Range r = split(chunk, localBlocks, blockIdx.x - putBlocks, 16);
    copy(out + own + r.begin, in + own + r.begin, r.size(), threadIdx.x, blockDim.x);
    finishLaunch(state, flag);
    return;
  }
  MemoryChannelHandle* mine = chans + (uint64_t)blockIdx.x * npeers;
  peerBarrier(mine, npeers, !inPlace);
  __syncthreads();
  const uint64_t slot = off + own;  // my chunk in every peer's output
  if (!inPlace) {
    Range r = split(chunk, putBlocks, blockIdx.x, 16);
    for (uint32_t j = 0; j < npeers; j++) {
      const uint32_t i = (j + rank) % npeers;  // ranks start with different peers
      const uint64_t q = mine[i].peer;
      copy(reinterpret_cast<char*>(mine[i].remote) + slot + r.begin, in + q * chunk + r.begin, r.size(), threadIdx.x,
           blockDim.x);
    }
    if (localBlocks == 0) copy(out + own + r.begin, in + own + r.begin, r.size(), threadIdx.x, blockDim.x);
  } else {
    const uint64_t half = chunk / 32 * 16;  // the lower rank's part of each chunk
    for (uint32_t j = 0; j < npeers; j++) {
      const uint32_t i = (j + rank) % npeers;
      const uint64_t q = mine[i].peer;
      const uint64_t lo = rank < q ? 0 : half, hi = rank < q ? half : chunk;
      Range r = split(hi - lo, putBlocks, blockIdx.x, 16);
      swapBytes(out + q * chunk + lo + r.begin, reinterpret_cast<char*>(mine[i].remote) + slot + lo + r.begin,
                r.size(), threadIdx.x, blockDim.x);
    }
  }
  __syncthreads();
  peerBarrier(mine, npeers, false);
  finishLaunch(state, flag);
}
