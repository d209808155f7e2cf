// broadcast_port.cu: broadcast over port channels, one host (host side:
// broadcast_port.go). The CPU proxy moves the root's buffer to every peer with
// the copy engine, as allgather_port does (collectives/allgather/allgather.cu).
//
// Block 0 meets every peer (relaxed: the copy engine reads the root's buffer only after this
// kernel's predecessors finished, by stream order). On the root, thread i then puts the
// whole buffer with a signal into peer i's output and flushes (the root's buffer may be
// reused once the kernel ends); out of place, the root's other blocks copy its input into
// its output meanwhile. In place the root's input is its output: nothing to copy. Every
// other rank waits for the root's signal on the root's channel: one block.
#include "mscclpp/collective_device.cuh"

using namespace mb;

extern "C" __global__ void __launch_bounds__(1024)
    broadcast_port(PortChannelHandle* chans, MemoryChannelHandle* syncChans, const char* in, char* out, uint64_t srcOff,
                   uint64_t dstOff, uint64_t bytes, uint32_t root, uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  if (blockIdx.x == 0) {
    peerBarrier(syncChans, npeers, true);
    __syncthreads();
    if (rank == root && threadIdx.x < npeers) {
      PortChannel c{chans[threadIdx.x]};
      c.putWithSignal(dstOff, srcOff, bytes);
      c.flush();
    } else if (rank != root && threadIdx.x == 0) {
      PortChannel c{chans[peerIndex(root, rank)]};
      c.wait();
    }
  }
  if (rank == root && in != out) {
    // block 0 drives the channels; the others (or block 0 alone, after) copy
    const uint64_t skip = gridDim.x > 1 ? blockDim.x : 0;
    if (globalThread() >= skip) copy(out, in, bytes, globalThread() - skip, globalThreads() - skip);
  }
  finishLaunch(state, flag);
}
