// pingpong.cu: point-to-point kernels for `mscclpp-bench pingpong` and acceptance.
// Each kernel runs `iters` rounds inside one launch so launch overhead stays out of the
// per-round figure. The initiator is the rank that starts each round.
#include "mscclpp/memory_channel_device.cuh"
#include "mscclpp/port_channel_device.cuh"

using mb::MemoryChannel;
using mb::PortChannel;

// Signal round trips: the initiator signals then waits, the other rank waits then signals.
// One thread. Relaxed ordering (memory channels only) is enough for a pure signal: no data
// travels with it.
template <bool Relaxed, typename Channel>
__device__ void signalRoundTrips(Channel c, int iters, int initiator) {
  for (int i = 0; i < iters; i++) {
    for (int step = 0; step < 2; step++) {
      if ((step == 0) == (initiator != 0)) {
        if constexpr (Relaxed) c.relaxedSignal(); else c.signal();
      } else {
        if constexpr (Relaxed) c.relaxedWait(); else c.wait();
      }
    }
  }
}

extern "C" __global__ void pingpong_memory_signal(MemoryChannelHandle* ch, int iters, int initiator) {
  signalRoundTrips<false>(MemoryChannel{*ch}, iters, initiator);
}

extern "C" __global__ void pingpong_memory_relaxed_signal(MemoryChannelHandle* ch, int iters, int initiator) {
  signalRoundTrips<true>(MemoryChannel{*ch}, iters, initiator);
}

// Each signal goes through the local proxy.
extern "C" __global__ void pingpong_port_signal(PortChannelHandle* ch, int iters, int initiator) {
  signalRoundTrips<false>(PortChannel{*ch}, iters, initiator);
}

// memoryPutRounds: `send` ranks put bytes into the peer each round and signal (one
// signal per block), `recv` ranks wait for every block's signal. Both flags set = both
// directions at once. The put uses all threads of all blocks. The host follows it with
// pingpong_memory_handshake, so the sender's time covers delivery.
template <int Unroll>
__device__ void memoryPutRounds(MemoryChannelHandle* ch, uint64_t bytes, int iters, int send, int recv) {
  MemoryChannel c{*ch};
  const uint64_t tid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  // Block b moves a contiguous share so that each block's signal covers its own bytes.
  mb::Range r = mb::split(bytes, gridDim.x, blockIdx.x, 16);
  for (int i = 0; i < iters; i++) {
    if (send) {
      c.put<Unroll>(r.begin, r.begin, r.size(), threadIdx.x, blockDim.x);
      __syncthreads();
      if (threadIdx.x == 0) c.signal();
    }
    if (recv && tid == 0) c.waitN(gridDim.x);  // one signal per block of the peer (same grid)
    // keep rounds apart so a fast sender cannot run more than one round ahead
    if (send && recv) {
      __syncthreads();
    }
  }
}

extern "C" __global__ void pingpong_memory_put(MemoryChannelHandle* ch, uint64_t bytes, int iters, int send,
                                               int recv) {
  memoryPutRounds<4>(ch, bytes, iters, send, recv);
}

extern "C" __global__ void pingpong_memory_put_u8(MemoryChannelHandle* ch, uint64_t bytes, int iters, int send,
                                                  int recv) {
  memoryPutRounds<8>(ch, bytes, iters, send, recv);
}

// Final handshake used after bandwidth rounds: each side signals and waits once on the
// put's channel (stream order keeps it after the rounds), so neither side's timed work ends
// before the other's data has landed.
extern "C" __global__ void pingpong_memory_handshake(MemoryChannelHandle* ch) {
  MemoryChannel c{*ch};
  c.signal();
  c.wait();
}

// Port channel bandwidth: one thread pushes putWithSignal per round; the receiver waits.
extern "C" __global__ void pingpong_port_put(PortChannelHandle* ch, uint64_t bytes, int iters, int send, int recv) {
  PortChannel c{*ch};
  for (int i = 0; i < iters; i++) {
    if (send) c.putWithSignal(0, 0, bytes);
    if (recv) c.wait();
  }
  if (send) c.flush();
}

// Port channel handshake: signal, flush, wait.
extern "C" __global__ void pingpong_port_handshake(PortChannelHandle* ch) {
  PortChannel c{*ch};
  c.signal();
  c.flush();
  c.wait();
}

