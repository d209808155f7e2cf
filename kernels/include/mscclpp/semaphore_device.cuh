// semaphore_device.cuh: device halves of the semaphores (host halves: channels/semaphore.go).
//
// Tokens only grow. A signal adds one to the peer's inbound token; a wait takes the next
// expected value (kept in device memory, so it survives kernel launches and graph replays)
// and spins until the inbound token reaches it.
#ifndef MSCCLPP_BENCH_SEMAPHORE_DEVICE_CUH_
#define MSCCLPP_BENCH_SEMAPHORE_DEVICE_CUH_

#include "atomic_device.cuh"

namespace mb {

// nextExpected advances the count of consumed signals. One thread at a time waits on a
// semaphore, so a plain load and store suffice (an atomic would add an L2 round trip).
MB_DEVICE uint64_t nextExpected(uint64_t expectedPtr, uint64_t n = 1) {
  volatile uint64_t* e = reinterpret_cast<volatile uint64_t*>(expectedPtr);
  uint64_t v = *e + n;
  *e = v;
  return v;
}

MB_DEVICE bool pollInbound(uint64_t inboundPtr, uint64_t expectedPtr) {
  uint64_t* exp = reinterpret_cast<uint64_t*>(expectedPtr);
  if (loadAcquireSys(reinterpret_cast<uint64_t*>(inboundPtr)) > *exp) {
    *exp += 1;
    return true;
  }
  return false;
}

// waitInbound consumes n signals: one poll until all n have arrived.
template <bool Acquire>
MB_DEVICE void waitInbound(uint64_t inboundPtr, uint64_t expectedPtr, uint32_t peer, uint32_t channel,
                           uint64_t n = 1) {
  uint64_t want = nextExpected(expectedPtr, n);
  const uint64_t* in = reinterpret_cast<const uint64_t*>(inboundPtr);
  SpinGuard g;
  while ((Acquire ? loadAcquireSys(in) : loadRelaxedSys(in)) < want) {
    if (g.expired(DEVERR_SEMAPHORE_WAIT, peer, channel)) return;
  }
}

// DeviceSemaphore is the device view of DeviceSemaphoreHandle.
struct DeviceSemaphore {
  DeviceSemaphoreHandle h;

  // signal publishes all earlier writes of this thread (release) and wakes the peer.
  MB_DEVICE void signal() { addReleaseSys(reinterpret_cast<uint64_t*>(h.remoteInbound), 1); }
  // relaxedSignal orders nothing; pair it with an explicit fence when data matters.
  MB_DEVICE void relaxedSignal() { addRelaxedSys(reinterpret_cast<uint64_t*>(h.remoteInbound), 1); }
  MB_DEVICE void wait(uint32_t peer, uint32_t channel, uint64_t n = 1) {
    waitInbound<true>(h.inbound, h.expected, peer, channel, n);
  }
  MB_DEVICE void relaxedWait(uint32_t peer, uint32_t channel) {
    waitInbound<false>(h.inbound, h.expected, peer, channel);
  }
  MB_DEVICE bool poll() { return pollInbound(h.inbound, h.expected); }
};

// HostSemaphore is the device view of HostSemaphoreHandle (signalled by a peer's proxy).
struct HostSemaphore {
  HostSemaphoreHandle h;

  MB_DEVICE void wait(uint32_t peer, uint32_t channel, uint64_t n = 1) {
    waitInbound<true>(h.inbound, h.expected, peer, channel, n);
  }
  MB_DEVICE bool poll() { return pollInbound(h.inbound, h.expected); }
};

}  // namespace mb

#endif  // MSCCLPP_BENCH_SEMAPHORE_DEVICE_CUH_
