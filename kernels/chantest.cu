// chantest.cu: kernels for the GPU test suite (cmd/mscclpp-bench-gpu/gputest). Each exercises one
// channel operation between two ranks that run the same kernel on each other; the host
// then checks the data that arrived.
#include "mscclpp/memory_channel_device.cuh"
#include "mscclpp/port_channel_device.cuh"

using mb::MemoryChannel;
using mb::PortChannel;

enum {
  MEM_PUT = 0,      // put everything, signal, wait
  MEM_GET = 1,      // signal, wait (peer's source is ready), get everything
  MEM_RELAXED = 2,  // put, fence, relaxedSignal, relaxedWait
  MEM_POLL = 3,     // put, signal, poll until the peer's signal shows
  MEM_LL8 = 4,      // putPackets LL8 into the peer's scratch, unpack own scratch into dst
  MEM_LL16 = 5,     // the same with LL16
  MEM_MULTI = 6     // put with every block, one signal per block, wait for all
};

// chantest_memory: one block of threads unless op is MEM_MULTI.
extern "C" __global__ void chantest_memory(MemoryChannelHandle* ch, int op, uint64_t bytes, uint32_t flag,
                                           char* scratch, char* dst) {
  MemoryChannel c{*ch};
  const uint32_t t = threadIdx.x, n = blockDim.x;
  switch (op) {
    case MEM_PUT:
      c.put(0, 0, bytes, t, n);
      __syncthreads();
      if (t == 0) {
        c.signal();
        c.wait();
      }
      break;
    case MEM_GET:
      if (t == 0) {
        c.signal();
        c.wait();
      }
      __syncthreads();
      c.get(0, 0, bytes, t, n);
      __syncthreads();
      if (t == 0) {  // do not return while the peer may still read our source
        c.signal();
        c.wait();
      }
      break;
    case MEM_RELAXED:
      c.put(0, 0, bytes, t, n);
      __threadfence_system();
      __syncthreads();
      if (t == 0) {
        c.relaxedSignal();
        c.relaxedWait();
        __threadfence_system();
      }
      break;
    case MEM_POLL:
      c.put(0, 0, bytes, t, n);
      __syncthreads();
      if (t == 0) {
        c.signal();
        mb::SpinGuard g;
        while (!c.poll()) {
          if (g.expired(DEVERR_SEMAPHORE_WAIT, ch->peer, ch->index)) break;
        }
      }
      break;
    case MEM_LL8:
      c.putPackets<mb::LL8>(0, 0, bytes, flag, t, n);
      c.unpackPackets<mb::LL8>(dst, scratch, 0, bytes, flag, t, n);
      break;
    case MEM_LL16:
      c.putPackets<mb::LL16>(0, 0, bytes, flag, t, n);
      c.unpackPackets<mb::LL16>(dst, scratch, 0, bytes, flag, t, n);
      break;
    case MEM_MULTI: {
      mb::Range r = mb::split(bytes, gridDim.x, blockIdx.x, 16);
      c.put(r.begin, r.begin, r.size(), t, n);
      __syncthreads();
      if (t == 0) c.signal();
      if (blockIdx.x == 0 && t == 0) c.waitN(gridDim.x);
      break;
    }
  }
}

enum {
  PORT_PUT_SIGNAL_FLUSH = 0,  // put; signal; flush; wait
  PORT_PUT_WITH_SIGNAL = 1,   // putWithSignal; wait; flush
  PORT_PUT_SIGNAL_FLUSH1 = 2, // putWithSignalAndFlush; wait
  PORT_MANY = 3               // `pieces` putWithSignal of bytes/pieces each; wait for as many; flush
};

// chantest_port: one thread drives the channel.
extern "C" __global__ void chantest_port(PortChannelHandle* ch, int op, uint64_t bytes, int pieces) {
  PortChannel c{*ch};
  switch (op) {
    case PORT_PUT_SIGNAL_FLUSH:
      c.put(0, 0, bytes);
      c.signal();
      c.flush();
      c.wait();
      break;
    case PORT_PUT_WITH_SIGNAL:
      c.putWithSignal(0, 0, bytes);
      c.wait();
      c.flush();
      break;
    case PORT_PUT_SIGNAL_FLUSH1:
      c.putWithSignalAndFlush(0, 0, bytes);
      c.wait();
      break;
    case PORT_MANY: {
      uint64_t chunk = bytes / pieces;
      for (int i = 0; i < pieces; i++) {
        uint64_t off = i * chunk;
        c.putWithSignal(off, off, i == pieces - 1 ? bytes - off : chunk);
      }
      for (int i = 0; i < pieces; i++) c.wait();
      c.flush();
      break;
    }
  }
}

// chantest_wait waits once on a memory channel (the timeout test: nobody signals).
extern "C" __global__ void chantest_wait(MemoryChannelHandle* ch) {
  MemoryChannel c{*ch};
  c.wait();
}

// chantest_port_oneway: the sender puts `rounds` times with a signal each and flushes; the
// receiver only waits. Then both meet with one signal each way.
extern "C" __global__ void chantest_port_oneway(PortChannelHandle* ch, uint64_t bytes, int rounds, int send) {
  PortChannel c{*ch};
  for (int i = 0; i < rounds; i++) {
    if (send) {
      c.putWithSignal(0, 0, bytes);
    } else {
      c.wait();
    }
  }
  if (send) c.flush();
  c.signal();
  c.flush();
  c.wait();
}
