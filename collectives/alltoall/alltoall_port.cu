// alltoall_port.cu: all-to-all over port channels, one host (host side:
// alltoall_port.go). The CPU proxy moves the peers' chunks with the copy engine,
// as allgather_port does (collectives/allgather/allgather.cu).
//
// Block 0 meets every peer (relaxed: the copy engine reads my buffer only after this kernel's
// predecessors finished, by stream order), then thread i serves peer i: one put-with-signal
// of my chunk for that peer, a wait for the peer's chunk, and a wait for the peer's word
// that mine has landed (putLanded: my buffer may be reused once the kernel ends).
//
// Out of place, chunk q of my input goes straight into chunk `rank` of peer q's output, and
// the other blocks copy my own chunk locally meanwhile.
//
// In place (input and output are the same buffer, at the same offset on every rank), a put
// into the peer's output would overwrite a chunk the peer has not sent yet. So the chunks go
// into slot `rank` of the peer's scratch instead; once block 0 has every peer's chunk and
// its own puts have landed (putLanded), it opens the gate and every block copies the scratch
// slots into my output. My own chunk is already in place.
#include "mscclpp/port_collective_device.cuh"

using namespace mb;

extern "C" __global__ void __launch_bounds__(1024)
    alltoall_port(PortChannelHandle* chans, MemoryChannelHandle* syncChans, const char* scratch, const char* in, char* out,
                  uint64_t srcOff, uint64_t dstOff, uint64_t chunk, uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  if (blockIdx.x == 0) {
    peerBarrier(syncChans, npeers, true);
    __syncthreads();
    if (threadIdx.x < npeers) {
      const uint32_t peer = peerRank(threadIdx.x, rank);
      PortChannel c{chans[threadIdx.x]};
      c.putWithSignal(dstOff + rank * chunk, srcOff + peer * chunk, chunk);
      c.wait();
      putLanded(syncChans[threadIdx.x], syncChans[threadIdx.x]);
    }
    if (scratch != nullptr) openGate(state, flag);
  } else if (scratch != nullptr) {
    awaitGate(state, flag, syncChans);
  }
  __syncthreads();
  if (scratch != nullptr) {
    for (uint32_t q = 0; q < nranks; q++) {
      if (q != rank) copy(out + q * chunk, scratch + q * chunk, chunk, globalThread(), globalThreads());
    }
  } else {
    // block 0 drives the channels; the others (or block 0 alone, after) copy my own chunk
    const uint64_t skip = gridDim.x > 1 ? blockDim.x : 0;
    if (globalThread() >= skip) copy(out + rank * chunk, in + rank * chunk, chunk, globalThread() - skip, globalThreads() - skip);
  }
  finishLaunch(state, flag);
}
