// memory_channel_device.cuh: device half of MemoryChannel (host half: channels/memory_channel.go).
// GPU threads write (put) into or read (get) from one peer's registered buffer directly
// over NVLink, and synchronise through a device-to-device semaphore.
#ifndef MSCCLPP_BENCH_MEMORY_CHANNEL_DEVICE_CUH_
#define MSCCLPP_BENCH_MEMORY_CHANNEL_DEVICE_CUH_

#include "copy_device.cuh"
#include "packet_device.cuh"
#include "semaphore_device.cuh"

namespace mb {

struct MemoryChannel {
  MemoryChannelHandle h;

  MB_DEVICE char* remote() const { return reinterpret_cast<char*>(h.remote); }
  MB_DEVICE char* local() const { return reinterpret_cast<char*>(h.local); }
  MB_DEVICE DeviceSemaphore sem() const { return DeviceSemaphore{h.sem}; }

  // put copies local[srcOff, +bytes) to remote[dstOff, ...) with threads tid of nthreads.
  template <int Unroll = 4>
  MB_DEVICE void put(uint64_t dstOff, uint64_t srcOff, uint64_t bytes, uint64_t tid, uint64_t nthreads) {
    copy<Unroll>(remote() + dstOff, local() + srcOff, bytes, tid, nthreads);
  }
  // get copies remote[srcOff, +bytes) to local[dstOff, ...).
  template <int Unroll = 4>
  MB_DEVICE void get(uint64_t dstOff, uint64_t srcOff, uint64_t bytes, uint64_t tid, uint64_t nthreads) {
    copy<Unroll>(local() + dstOff, remote() + srcOff, bytes, tid, nthreads);
  }

  MB_DEVICE void signal() { sem().signal(); }
  MB_DEVICE void relaxedSignal() { sem().relaxedSignal(); }
  MB_DEVICE void wait() { sem().wait(h.peer, h.index); }
  // waitN consumes n signals with a single poll (e.g. one signal per block of the peer).
  MB_DEVICE void waitN(uint64_t n) { sem().wait(h.peer, h.index, n); }
  MB_DEVICE void relaxedWait() { sem().relaxedWait(h.peer, h.index); }
  MB_DEVICE bool poll() { return sem().poll(); }

  // putPackets writes local[srcOff, +bytes) as packets at remote[dstOff, ...) (a packet buffer).
  template <typename P>
  MB_DEVICE void putPackets(uint64_t dstOff, uint64_t srcOff, uint64_t bytes, uint32_t flag, uint32_t tid,
                            uint32_t nthreads) {
    mb::putPackets<P>(remote() + dstOff, local() + srcOff, bytes, flag, tid, nthreads);
  }
  // unpackPackets reads packets that the peer wrote at packets[srcOff, ...) (a local packet
  // buffer) and stores their data at dst.
  template <typename P>
  MB_DEVICE void unpackPackets(void* dst, const char* packets, uint64_t srcOff, uint64_t bytes, uint32_t flag,
                               uint32_t tid, uint32_t nthreads) {
    mb::unpackPackets<P>(dst, packets + srcOff, bytes, flag, tid, nthreads, h.peer, h.index);
  }
};

}  // namespace mb

#endif  // MSCCLPP_BENCH_MEMORY_CHANNEL_DEVICE_CUH_
