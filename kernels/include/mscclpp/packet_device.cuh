// packet_device.cuh: LL ("low-latency") packets. Data and a flag travel in one store, so
// the receiver needs no separate semaphore: it spins until the flag it expects appears.
//
//   LL8:  8 bytes = 4 bytes of data + 4-byte flag        (50% efficiency, one 8-byte store)
//   LL16: 16 bytes = {data, flag, data, flag}            (50% efficiency, one 16-byte store;
//          each 8-byte half carries the flag, so a torn store is never read as complete)
//
// Flags must never be 0 (buffers start zeroed) and must differ between consecutive uses of
// the same packet slot; callers use a launch counter and double-buffer by its parity.
#ifndef MSCCLPP_BENCH_PACKET_DEVICE_CUH_
#define MSCCLPP_BENCH_PACKET_DEVICE_CUH_

#include "atomic_device.cuh"

namespace mb {

struct LL8 {
  using Payload = uint32_t;
  static constexpr uint32_t kDataBytes = 4;
  static constexpr uint32_t kPacketBytes = 8;

  MB_DEVICE static void write(void* p, Payload v, uint32_t flag) {
    asm volatile("st.volatile.global.v2.u32 [%0], {%1,%2};" ::"l"(p), "r"(v), "r"(flag) : "memory");
  }
  MB_DEVICE static bool readOnce(const void* p, uint32_t flag, Payload& v) {
    uint32_t f;
    asm volatile("ld.volatile.global.v2.u32 {%0,%1}, [%2];" : "=r"(v), "=r"(f) : "l"(p) : "memory");
    return f == flag;
  }
};

struct LL16 {
  using Payload = uint2;
  static constexpr uint32_t kDataBytes = 8;
  static constexpr uint32_t kPacketBytes = 16;

  MB_DEVICE static void write(void* p, Payload v, uint32_t flag) {
    asm volatile("st.volatile.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(flag), "r"(v.y),
                 "r"(flag)
                 : "memory");
  }
  MB_DEVICE static bool readOnce(const void* p, uint32_t flag, Payload& v) {
    uint32_t f1, f2;
    asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(f1), "=r"(v.y), "=r"(f2)
                 : "l"(p)
                 : "memory");
    return f1 == flag && f2 == flag;
  }
};

// readPacket spins until the packet at p carries flag. On timeout it records
// DEVERR_PACKET_READ and returns whatever it last read.
template <typename P>
MB_DEVICE typename P::Payload readPacket(const void* p, uint32_t flag, uint32_t peer, uint32_t channel) {
  typename P::Payload v;
  SpinGuard g;
  while (!P::readOnce(p, flag, v)) {
    if (g.expired(DEVERR_PACKET_READ, peer, channel)) break;
  }
  return v;
}

// payloadAligned says whether p may be accessed as one Payload word: buffers at any element
// offset (nccl-tests' -u) take the byte path.
template <typename P>
MB_DEVICE bool payloadAligned(const void* p) {
  return (reinterpret_cast<uintptr_t>(p) & (P::kDataBytes - 1)) == 0;
}

// loadPayload reads one packet's worth of data from src; only `valid` bytes are read
// (the rest are zero), so the tail of a buffer is never overrun. src may have any
// alignment.
template <typename P>
MB_DEVICE typename P::Payload loadPayload(const char* src, uint32_t valid) {
  typename P::Payload v;
  if (valid >= P::kDataBytes && payloadAligned<P>(src)) {
    v = *reinterpret_cast<const typename P::Payload*>(src);
  } else {
    uint8_t b[P::kDataBytes] = {0};
    for (uint32_t i = 0; i < valid; i++) b[i] = src[i];
    v = *reinterpret_cast<typename P::Payload*>(b);
  }
  return v;
}

// storePayload writes `valid` bytes of v to dst, which may have any alignment.
template <typename P>
MB_DEVICE void storePayload(char* dst, typename P::Payload v, uint32_t valid) {
  if (valid >= P::kDataBytes && payloadAligned<P>(dst)) {
    *reinterpret_cast<typename P::Payload*>(dst) = v;
  } else {
    const uint8_t* b = reinterpret_cast<const uint8_t*>(&v);
    for (uint32_t i = 0; i < valid; i++) dst[i] = b[i];
  }
}

// putPackets turns bytes of src into packets at dst (usually a peer's packet buffer).
// Threads tid..: stride nthreads. src may have any alignment (whole words when aligned).
template <typename P>
MB_DEVICE void putPackets(void* dst, const void* src, uint64_t bytes, uint32_t flag, uint32_t tid,
                          uint32_t nthreads) {
  const char* s = reinterpret_cast<const char*>(src);
  char* d = reinterpret_cast<char*>(dst);
  uint64_t n = (bytes + P::kDataBytes - 1) / P::kDataBytes;
  for (uint64_t i = tid; i < n; i += nthreads) {
    uint64_t off = i * P::kDataBytes;
    uint32_t valid = (uint32_t)min((uint64_t)P::kDataBytes, bytes - off);
    P::write(d + i * P::kPacketBytes, loadPayload<P>(s + off, valid), flag);
  }
}

// unpackPackets waits for packets at src (a local packet buffer) and writes their data to dst.
template <typename P>
MB_DEVICE void unpackPackets(void* dst, const void* src, uint64_t bytes, uint32_t flag, uint32_t tid,
                             uint32_t nthreads, uint32_t peer, uint32_t channel) {
  const char* s = reinterpret_cast<const char*>(src);
  char* d = reinterpret_cast<char*>(dst);
  uint64_t n = (bytes + P::kDataBytes - 1) / P::kDataBytes;
  for (uint64_t i = tid; i < n; i += nthreads) {
    uint64_t off = i * P::kDataBytes;
    uint32_t valid = (uint32_t)min((uint64_t)P::kDataBytes, bytes - off);
    storePayload<P>(d + off, readPacket<P>(s + i * P::kPacketBytes, flag, peer, channel), valid);
  }
}

}  // namespace mb

#endif  // MSCCLPP_BENCH_PACKET_DEVICE_CUH_
