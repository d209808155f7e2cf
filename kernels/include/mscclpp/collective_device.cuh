// collective_device.cuh: what the collective kernels share.
//
// Every algorithm instance owns a LaunchState (handles.h) in device memory, zeroed at
// set-up. Kernels keep their cross-launch state there, never in arguments, so a captured
// CUDA graph can replay them: the launch counter gives LL packets a fresh flag each launch,
// and the counters implement grid-wide barriers. Grids must fit on the GPU at once (one
// block per SM at most), since blocks wait for each other.
#ifndef MSCCLPP_BENCH_COLLECTIVE_DEVICE_CUH_
#define MSCCLPP_BENCH_COLLECTIVE_DEVICE_CUH_

#include "memory_channel_device.cuh"
#include "port_channel_device.cuh"
#include "reduce_device.cuh"

namespace mb {

// A rank's channel arrays hold one entry per peer: every rank but me, in rank order.
// peerRank is the rank of entry i; peerIndex, its inverse, is the entry of rank q (q !=
// rank). The same numbering serves any list that skips me: a host's local ranks, the
// hosts of a rail.
MB_DEVICE uint32_t peerRank(uint32_t i, uint32_t rank) { return i < rank ? i : i + 1; }
MB_DEVICE uint32_t peerIndex(uint32_t q, uint32_t rank) { return q < rank ? q : q - 1; }

MB_DEVICE uint32_t launchFlag(LaunchState* st) {
  return *reinterpret_cast<volatile uint32_t*>(&st->launches) + 1;
}

// finishLaunch: the last block to get here advances the launch counter. Call once per
// block, by every thread, at the very end.
// flag is launchFlag() as read at the start; storing it counts this launch (the next launch
// reads it after this kernel ends, so a plain store suffices). One block needs no atomics.
MB_DEVICE void finishLaunch(LaunchState* st, uint32_t flag) {
  __syncthreads();
  if (threadIdx.x != 0) return;
  if (gridDim.x == 1) {
    st->launches = flag;
    return;
  }
  if (atomicAdd(&st->arrived, 1u) == gridDim.x - 1) {
    st->arrived = 0;
    st->launches = flag;
  }
}

// lastBlock returns true in the one block that gets here last (all threads call it).
MB_DEVICE bool lastBlock(LaunchState* st) {
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(&st->done, 1u) == gridDim.x - 1;
    if (last) st->done = 0;
  }
  __syncthreads();
  return last;
}

// peerBarrier: threads 0..npeers-1 signal and wait on one channel each.
MB_DEVICE void peerBarrier(MemoryChannelHandle* chans, uint32_t npeers, bool relaxed) {
  if (threadIdx.x < npeers) {
    MemoryChannel c{chans[threadIdx.x]};
    if (relaxed) {
      c.relaxedSignal();
      c.relaxedWait();
    } else {
      c.signal();
      c.wait();
    }
  }
}

// openGate: once this block has met the peers, thread 0 lets the grid's other blocks go on
// (go = flag). awaitGate: thread 0 of another block waits for that.
MB_DEVICE void openGate(LaunchState* st, uint32_t flag) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicExch(&st->go, flag);
  }
}

MB_DEVICE void awaitGate(LaunchState* st, uint32_t flag, MemoryChannelHandle* chans) {
  if (threadIdx.x == 0) {
    SpinGuard g;
    while (*reinterpret_cast<volatile uint32_t*>(&st->go) != flag) {
      if (g.expired(DEVERR_SEMAPHORE_WAIT, chans[0].peer, chans[0].index)) break;
    }
    __threadfence();
  }
}

// startBarrier: block 0 meets every peer (release/acquire: what the peers wrote before
// their launch is visible after it); the other blocks wait for block 0.
MB_DEVICE void startBarrier(LaunchState* st, uint32_t flag, MemoryChannelHandle* chans, uint32_t npeers) {
  if (blockIdx.x == 0) {
    peerBarrier(chans, npeers, false);
    openGate(st, flag);
  } else {
    awaitGate(st, flag, chans);
  }
  __syncthreads();
}

// gridStartBarrier: like startBarrier, but the last block of the grid to get here meets the
// peers, so that what every block wrote before it (e.g. a copy the peers will read) is
// visible to them after it.
MB_DEVICE void gridStartBarrier(LaunchState* st, uint32_t flag, MemoryChannelHandle* chans, uint32_t npeers) {
  if (lastBlock(st)) {
    peerBarrier(chans, npeers, false);
    openGate(st, flag);
  } else {
    awaitGate(st, flag, chans);
  }
  __syncthreads();
}

// endBarrier: once every block has done its main work, the last one meets every peer, so
// no rank returns while a peer may still read its input or write its output.
MB_DEVICE void endBarrier(LaunchState* st, MemoryChannelHandle* chans, uint32_t npeers) {
  if (lastBlock(st)) peerBarrier(chans, npeers, false);
}

MB_DEVICE uint64_t globalThread() { return (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; }
MB_DEVICE uint64_t globalThreads() { return (uint64_t)gridDim.x * blockDim.x; }

}  // namespace mb

#endif  // MSCCLPP_BENCH_COLLECTIVE_DEVICE_CUH_
