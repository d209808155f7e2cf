// port_channel_device.cuh: device halves of the proxy FIFO and of PortChannel
// (host halves: channels/fifo.go, channels/proxy.go, channels/port_channel.go).
//
// A GPU thread claims a slot by bumping the head (device memory), waits while the slot is
// still owned by the proxy (slot position >= tail + size; tail lives in mapped host memory),
// then writes the trigger: fst first, snd (carrying the valid bit) last with release order.
// The proxy clears the slot, then advances the tail. A flush pushes a SYNC trigger and waits
// until the tail passes it: the proxy advances the tail past SYNC only once every copy it
// issued before has completed.
#ifndef MSCCLPP_BENCH_PORT_CHANNEL_DEVICE_CUH_
#define MSCCLPP_BENCH_PORT_CHANNEL_DEVICE_CUH_

#include "semaphore_device.cuh"

namespace mb {

struct Fifo {
  FifoHandle h;

  MB_DEVICE uint64_t* head() const { return reinterpret_cast<uint64_t*>(h.head); }
  MB_DEVICE uint64_t* tail() const { return reinterpret_cast<uint64_t*>(h.tail); }
  MB_DEVICE uint64_t* tailCache() const { return reinterpret_cast<uint64_t*>(h.tailCache); }

  // push returns the slot position of the trigger (pass it to sync to wait for it).
  MB_DEVICE uint64_t push(ProxyTrigger t, uint32_t peer, uint32_t channel) {
    uint64_t pos = atomicAdd(reinterpret_cast<unsigned long long*>(head()), 1ull);
    if (pos >= *reinterpret_cast<volatile uint64_t*>(tailCache()) + h.size) {
      uint64_t tl;
      SpinGuard g;
      while (pos >= (tl = loadAcquireSys(tail())) + h.size) {
        if (g.expired(DEVERR_FIFO_PUSH, peer, channel)) return pos;
      }
      *reinterpret_cast<volatile uint64_t*>(tailCache()) = tl;
    }
    ProxyTrigger* slot = reinterpret_cast<ProxyTrigger*>(h.triggers) + (pos & (h.size - 1));
    // One 16-byte release store at system scope: every write this thread made or saw before
    // (its block's, after a barrier) is visible to the proxy before either word. PTX lets the
    // two words land in either order, so each carries a valid bit (handles.h) and the proxy
    // takes the trigger only once both do.
    asm volatile("st.release.sys.global.v2.u64 [%0], {%1, %2};" ::"l"(slot), "l"(t.fst), "l"(t.snd) : "memory");
    return pos;
  }

  // sync waits until the proxy has consumed the trigger at pos.
  MB_DEVICE void sync(uint64_t pos, uint32_t peer, uint32_t channel) {
    uint64_t tl;
    SpinGuard g;
    while ((tl = loadAcquireSys(tail())) <= pos) {
      if (g.expired(DEVERR_FIFO_FLUSH, peer, channel)) return;
    }
    *reinterpret_cast<volatile uint64_t*>(tailCache()) = tl;
  }
};

struct PortChannel {
  PortChannelHandle h;

  MB_DEVICE Fifo fifo() const { return Fifo{h.fifo}; }
  MB_DEVICE uint64_t push(uint32_t type, uint64_t dstOff, uint64_t srcOff, uint64_t bytes) {
    return fifo().push(makeTrigger(type, h.id, dstOff, srcOff, bytes), h.peer, h.id);
  }

  // pushData pushes a copy as triggers of at most TRIGGER_MAX_BYTES; the last one carries
  // the extra type bits (FLAG, SYNC).
  MB_DEVICE uint64_t pushData(uint32_t extra, uint64_t dstOff, uint64_t srcOff, uint64_t bytes) {
    for (; bytes > TRIGGER_MAX_BYTES; bytes -= TRIGGER_MAX_BYTES - 15) {
      push(TRIGGER_DATA, dstOff, srcOff, TRIGGER_MAX_BYTES - 15);  // keep pieces 16-byte aligned
      dstOff += TRIGGER_MAX_BYTES - 15;
      srcOff += TRIGGER_MAX_BYTES - 15;
    }
    return push(TRIGGER_DATA | extra, dstOff, srcOff, bytes);
  }

  // put asks the proxy to copy local[srcOff, +bytes) to the peer's buffer at dstOff.
  MB_DEVICE void put(uint64_t dstOff, uint64_t srcOff, uint64_t bytes) { pushData(0, dstOff, srcOff, bytes); }
  // signal asks the proxy to signal the peer once everything pushed before has landed.
  MB_DEVICE void signal() { push(TRIGGER_FLAG, 0, 0, 0); }
  MB_DEVICE void putWithSignal(uint64_t dstOff, uint64_t srcOff, uint64_t bytes) {
    pushData(TRIGGER_FLAG, dstOff, srcOff, bytes);
  }
  MB_DEVICE void putWithSignalAndFlush(uint64_t dstOff, uint64_t srcOff, uint64_t bytes) {
    uint64_t pos = pushData(TRIGGER_FLAG | TRIGGER_SYNC, dstOff, srcOff, bytes);
    fifo().sync(pos, h.peer, h.id);
  }
  // flush waits until every copy pushed before has completed.
  MB_DEVICE void flush() {
    uint64_t pos = push(TRIGGER_SYNC, 0, 0, 0);
    fifo().sync(pos, h.peer, h.id);
  }
  MB_DEVICE void wait() { HostSemaphore{h.sem}.wait(h.peer, h.id); }
  MB_DEVICE void waitN(uint64_t n) { HostSemaphore{h.sem}.wait(h.peer, h.id, n); }
  MB_DEVICE bool poll() { return HostSemaphore{h.sem}.poll(); }
};

}  // namespace mb

#endif  // MSCCLPP_BENCH_PORT_CHANNEL_DEVICE_CUH_
