// allgather.cu: all-gather kernels (host side: allgather_*.go).
//
// Every rank contributes `chunk` bytes (a multiple of 16: nccl-tests aligns all-gather
// counts so) and receives nranks*chunk. Output slot r holds rank r's chunk. `in` is this
// rank's input (in place: out + rank*chunk). Channel arrays hold one channel per peer in
// ascending rank order; remote addresses are channel.remote + the same offsets as here,
// since every rank runs with the same offsets.
#include "mscclpp/port_collective_device.cuh"

using namespace mb;

// LL16 packets, one shot: write my chunk as packets into every peer's scratch slot `rank`
// (of the half picked by the launch parity), copy my own chunk, then unpack every peer's
// packets from my scratch. No barrier is needed: the flag says when data is there, and the
// two halves keep a fast rank from overwriting packets a slow one has not read.
extern "C" __global__ void __launch_bounds__(1024) allgather_ll16(MemoryChannelHandle* scratchChans, char* scratch,
                                                                  uint64_t slotBytes, const char* in, char* out,
                                                                  uint64_t chunk, uint32_t rank, uint32_t nranks,
                                                                  LaunchState* state) {
  const uint32_t flag = launchFlag(state);
  const uint64_t half = (uint64_t)(flag & 1) * nranks * slotBytes;
  const uint32_t tid = (uint32_t)globalThread(), nth = (uint32_t)globalThreads();
  for (uint32_t i = 0; i + 1 < nranks; i++) {
    char* dst = reinterpret_cast<char*>(scratchChans[i].remote) + half + rank * slotBytes;
    putPackets<LL16>(dst, in, chunk, flag, tid, nth);
  }
  char* mine = out + rank * chunk;
  if (mine != in) copy(mine, in, chunk, tid, nth);
  for (uint32_t i = 0; i + 1 < nranks; i++) {
    uint32_t q = peerRank(i, rank);
    unpackPackets<LL16>(out + q * chunk, scratch + half + q * slotBytes, chunk, flag, tid, nth, q,
                        scratchChans[i].index);
  }
  finishLaunch(state, flag);
}

// SM put: after a start barrier (the peers are ready to receive), every block writes its
// share of my chunk into every peer's output slot `rank` and signals; block 0 waits for
// every block of every peer.
extern "C" __global__ void __launch_bounds__(1024, 1) allgather_put(MemoryChannelHandle* outChans, const char* in,
                                                                    char* out, uint64_t outOff, uint64_t chunk,
                                                                    uint32_t rank, uint32_t nranks,
                                                                    LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  startBarrier(state, flag, outChans, npeers);
  Range r = split(chunk, gridDim.x, blockIdx.x, 16);
  const uint64_t slot = outOff + rank * chunk;
  for (uint32_t i = 0; i < npeers; i++) {
    copy(reinterpret_cast<char*>(outChans[i].remote) + slot + r.begin, in + r.begin, r.size(), threadIdx.x,
         blockDim.x);
  }
  char* mine = out + rank * chunk;
  if (mine != in) copy(mine + r.begin, in + r.begin, r.size(), threadIdx.x, blockDim.x);
  __syncthreads();
  if (threadIdx.x < npeers) MemoryChannel{outChans[threadIdx.x]}.signal();
  if (blockIdx.x == 0 && threadIdx.x < npeers) MemoryChannel{outChans[threadIdx.x]}.waitN(gridDim.x);
  finishLaunch(state, flag);
}

// SM get: after a start barrier (the peers' inputs are ready), every block reads its share
// of every peer's chunk into my output; an end barrier keeps each rank's input alive until
// every peer has read it. inChans reach the peers' input buffers (in place: their outputs);
// syncChans are for the barriers.
extern "C" __global__ void __launch_bounds__(1024, 1) allgather_get(MemoryChannelHandle* inChans,
                                                                    MemoryChannelHandle* syncChans, const char* in,
                                                                    char* out, uint64_t peerInOff, uint64_t chunk,
                                                                    uint32_t rank, uint32_t nranks, uint32_t inPlace,
                                                                    LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  startBarrier(state, flag, syncChans, npeers);
  Range r = split(chunk, gridDim.x, blockIdx.x, 16);
  for (uint32_t i = 0; i < npeers; i++) {
    uint32_t q = peerRank(i, rank);
    // a peer's input: its input buffer at peerInOff, or (in place) its output slot q
    const char* src = reinterpret_cast<const char*>(inChans[i].remote) + peerInOff + (inPlace ? q * chunk : 0);
    copy(out + q * chunk + r.begin, src + r.begin, r.size(), threadIdx.x, blockDim.x);
  }
  char* mine = out + rank * chunk;
  if (mine != in) copy(mine + r.begin, in + r.begin, r.size(), threadIdx.x, blockDim.x);
  endBarrier(state, syncChans, npeers);
  finishLaunch(state, flag);
}

// Copy engine: one thread per peer pushes a put-with-signal of my chunk into the peer's
// output slot, waits for the peer's chunk, and then for the peer's word that mine has
// landed (putLanded: my input may be reused once the kernel ends). Blocks 1.. copy my own
// chunk locally meanwhile (out of place).
// portChans copy from my input buffer (in place: my output buffer) to the peers' outputs.
extern "C" __global__ void __launch_bounds__(1024) allgather_port(PortChannelHandle* portChans,
                                                                  MemoryChannelHandle* syncChans, const char* in,
                                                                  char* out, uint64_t srcOff, uint64_t outOff,
                                                                  uint64_t chunk, uint32_t rank, uint32_t nranks,
                                                                  LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  if (blockIdx.x == 0) {
    // Start barrier (relaxed: the copy engine reads my input only after this kernel's
    // predecessors finished, by stream order).
    peerBarrier(syncChans, npeers, true);
    __syncthreads();
    if (threadIdx.x < npeers) {
      PortChannel c{portChans[threadIdx.x]};
      c.putWithSignal(outOff + rank * chunk, srcOff, chunk);
      c.wait();
      putLanded(syncChans[threadIdx.x], syncChans[threadIdx.x]);
    }
  } else {
    char* mine = out + rank * chunk;
    if (mine != in) copy(mine, in, chunk, globalThread() - blockDim.x, globalThreads() - blockDim.x);
  }
  finishLaunch(state, flag);
}
