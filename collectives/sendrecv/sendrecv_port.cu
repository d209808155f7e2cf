// sendrecv_port.cu: send-receive over port channels, one host (host side:
// sendrecv_port.go). The CPU proxy moves my buffer to the next rank with the
// copy engine, as allgather_port does (collectives/allgather/allgather.cu).
//
// Block 0 meets every peer (relaxed: the copy engine reads my buffer only after this kernel's
// predecessors finished, by stream order), then one thread puts my buffer with a signal into
// the next rank's output, waits for the previous rank's signal, tells the previous rank so
// and waits for the next rank's word that mine has landed (putLanded: my buffer may be
// reused once the kernel ends). Out of place that is all: one block.
//
// In place (input and output are the same buffer, at the same offset on every rank), the
// previous rank's put would overwrite data my own put has not read yet. So the data goes
// into the next rank's scratch instead; once block 0 has the previous rank's data and its
// own put has landed (putLanded), it opens the gate and every block copies the scratch into
// my output.
#include "mscclpp/port_collective_device.cuh"

using namespace mb;

extern "C" __global__ void __launch_bounds__(1024)
    sendrecv_port(PortChannelHandle* chans, MemoryChannelHandle* syncChans, const char* scratch, char* out, uint64_t srcOff,
                  uint64_t dstOff, uint64_t bytes, uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  if (blockIdx.x == 0) {
    peerBarrier(syncChans, npeers, true);
    __syncthreads();
    if (threadIdx.x == 0) {
      // channel i serves peer i, skipping me
      const uint32_t next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
      const uint32_t ni = peerIndex(next, rank), pi = peerIndex(prev, rank);
      PortChannel to{chans[ni]}, from{chans[pi]};
      to.putWithSignal(dstOff, srcOff, bytes);
      from.wait();
      putLanded(syncChans[pi], syncChans[ni]);
    }
    if (scratch != nullptr) openGate(state, flag);
  } else if (scratch != nullptr) {
    awaitGate(state, flag, syncChans);
  }
  __syncthreads();
  if (scratch != nullptr) copy(out, scratch, bytes, globalThread(), globalThreads());
  finishLaunch(state, flag);
}
