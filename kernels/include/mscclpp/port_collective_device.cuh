// port_collective_device.cuh: what the port-channel collectives share on the device.
//
// Waiting for port-channel signals in a kernel of many blocks:
// The tokens of port channels to network peers live in host memory (NetworkHostTokens,
// channels/port_channel.go): polled over PCIe, they must be polled by few threads. So
// only block 0 waits on the channels (thread i on channel i) and then opens the launch's
// gate; the other blocks wait for the gate in GPU memory.
#ifndef MSCCLPP_BENCH_PORT_COLLECTIVE_DEVICE_CUH_
#define MSCCLPP_BENCH_PORT_COLLECTIVE_DEVICE_CUH_

#include "mscclpp/collective_device.cuh"

namespace mb {

// awaitCount waits until channel c's inbound token reaches its expected count plus n;
// the expected count is not advanced.
MB_DEVICE void awaitCount(const PortChannelHandle& c, uint64_t n) {
  const uint64_t want = *reinterpret_cast<volatile uint64_t*>(c.sem.expected) + n;
  SpinGuard g;
  while (loadAcquireSys(reinterpret_cast<uint64_t*>(c.sem.inbound)) < want) {
    if (g.expired(DEVERR_SEMAPHORE_WAIT, c.peer, c.id)) break;
  }
}

// putLanded stands in for a flush after puts between ranks of one host: I have just waited
// for the put-with-signal of the rank behind `from`, so its data is here. I tell it so over
// `from` (a memory channel, one NVLink write) and wait on `to` for the word of the rank I put
// to that my put has landed there, which means the copy engine has finished reading my
// buffer: one round trip over NVLink instead of one through the proxy. Each pair's
// semaphore counts one signal and one wait per direction, as a barrier does. Ranks that put
// to each other pass the same channel twice.
MB_DEVICE void putLanded(MemoryChannelHandle& from, MemoryChannelHandle& to) {
  MemoryChannel{from}.signal();
  MemoryChannel{to}.wait();
}

// portGate: block 0's thread i waits for count expected+n on chans[i] and the block then
// opens the gate (st->go = flag); the other blocks' thread 0 waits for the gate. Every
// thread of every block calls it; on return what the peers put before those signals is
// visible to the whole grid.
MB_DEVICE void portGate(LaunchState* st, uint32_t flag, PortChannelHandle* chans, uint32_t npeers, uint64_t n) {
  if (blockIdx.x == 0) {
    if (threadIdx.x < npeers) awaitCount(chans[threadIdx.x], n);
    openGate(st, flag);
  } else if (threadIdx.x == 0) {
    SpinGuard g;
    while (*reinterpret_cast<volatile uint32_t*>(&st->go) != flag) {
      if (g.expired(DEVERR_SEMAPHORE_WAIT, chans[0].peer, chans[0].id)) break;
    }
    __threadfence();
  }
  __syncthreads();
}

// finishPortLaunch ends a launch that waited for one signal from each of chans[0..npeers)
// (portGate or hostGate with n = 1): the last block's thread i advances chans[i]'s
// expected count by one, for the next launch's wait, and finishLaunch counts the launch.
// Every thread of every block calls it, at the very end.
MB_DEVICE void finishPortLaunch(LaunchState* st, uint32_t flag, PortChannelHandle* chans, uint32_t npeers) {
  if (lastBlock(st) && threadIdx.x < npeers) {
    *reinterpret_cast<volatile uint64_t*>(chans[threadIdx.x].sem.expected) += 1;
  }
  finishLaunch(st, flag);
}

// reduceSources reduces bytes [begin, begin+size) of the nranks sources (rank r's at
// from(r) + offset, in rank order) into out + offset: whole 16-byte words first, then the
// elements that do not fill one (only at the very end of a message); all of it element by
// element when a source or the output is off 16-byte alignment (-u). Each block calls it
// for its own range, every thread of the block together. from must not load memory (its
// pointers are tested before the loop).
template <typename T, int Op, typename From>
MB_DEVICE void reduceSources(char* out, From from, uint64_t begin, uint64_t size, uint32_t nranks) {
  // any source or the output off 16-byte alignment (-u): element by element
  uintptr_t align = reinterpret_cast<uintptr_t>(out + begin);
  for (uint32_t r = 0; r < nranks; r++) align |= reinterpret_cast<uintptr_t>(from(r) + begin);
  const uint64_t nvec = (align & 15) == 0 ? size / 16 : 0;
  for (uint64_t v = threadIdx.x; v < nvec; v += blockDim.x) {
    const uint64_t o = begin + v * 16;
    int4 acc = *reinterpret_cast<const int4*>(from(0) + o);
    for (uint32_t r = 1; r < nranks; r++) acc = applyWord<T, Op>(acc, *reinterpret_cast<const int4*>(from(r) + o));
    *reinterpret_cast<int4*>(out + o) = finishWord<T, Op>(acc, nranks);
  }
  const uint64_t tail = (size - nvec * 16) / sizeof(T);
  for (uint64_t e = threadIdx.x; e < tail; e += blockDim.x) {
    const uint64_t o = begin + nvec * 16 + e * sizeof(T);
    T acc = *reinterpret_cast<const T*>(from(0) + o);
    for (uint32_t r = 1; r < nranks; r++) acc = Apply<T, Op>::f(acc, *reinterpret_cast<const T*>(from(r) + o));
    *reinterpret_cast<T*>(out + o) = finish<T, Op>(acc, nranks);
  }
}

}  // namespace mb

#endif  // MSCCLPP_BENCH_PORT_COLLECTIVE_DEVICE_CUH_
