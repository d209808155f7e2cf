// hypercube.cu: nccl-tests' hypercube all-gather over memory channels (host side:
// hypercube_*.go). nranks is a power of two.
//
// In step k (mask = 2^k) a rank holds the slots of the mask ranks that share its number
// but for the low k bits, starting at slot s = rank & ~(mask-1), and puts them into the
// same slots of the output of its partner rank ^ mask, which does the same the other way;
// after log2(nranks) steps every rank holds every slot. Block b of every rank owns share b
// of every slot and has its own semaphore with every peer (channels [block][peer], to the
// peers' outputs, as alltoall_blockput), so block b only ever meets block b of its
// partners: the share b it forwards in step k+1 is its own or arrived from block b of the
// partner of step k, which signalled (release) after writing it, and this block waited for
// that signal (acquire) before going on.
//
// At the start each block meets its partners (relaxed: their launch has started, so stream
// order has finished their earlier use of their outputs, which is all a put could disturb).
// Out of place, my input is first copied into my slot; in place it is already there. A
// step's signal tells the partner its data has landed, so no end barrier is needed: every
// write into my output is one I waited for.
#include "mscclpp/rooted_device.cuh"

using namespace mb;

// hypercube_put: off is the outputs' offset (the same on every rank); in is my input.
extern "C" __global__ void __launch_bounds__(1024, 1)
    hypercube_put(MemoryChannelHandle* chans, const char* in, char* out, uint64_t off, uint64_t chunk,
                  uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  MemoryChannelHandle* mine = chans + (uint64_t)blockIdx.x * npeers;
  uint32_t steps = 0;
  while ((1u << steps) < nranks) steps++;
  if (threadIdx.x < steps) {
    MemoryChannel c{mine[peerIndex(rank ^ (1u << threadIdx.x), rank)]};
    c.relaxedSignal();
    c.relaxedWait();
  }
  __syncthreads();
  const Range r = split(chunk, gridDim.x, blockIdx.x, 16);
  char* own = out + (uint64_t)rank * chunk;
  if (in != own) {
    copy(own + r.begin, in + r.begin, r.size(), threadIdx.x, blockDim.x);
    __syncthreads();
  }
  for (uint32_t mask = 1; mask < nranks; mask <<= 1) {
    MemoryChannelHandle* h = &mine[peerIndex(rank ^ mask, rank)];
    char* remote = reinterpret_cast<char*>(h->remote) + off;
    const uint64_t first = rank & ~(mask - 1);
    for (uint64_t s = first; s < first + mask; s++) {
      copy(remote + s * chunk + r.begin, out + s * chunk + r.begin, r.size(), threadIdx.x, blockDim.x);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      MemoryChannel c{*h};
      c.signal();
      c.wait();
    }
    __syncthreads();
  }
  finishLaunch(state, flag);
}
