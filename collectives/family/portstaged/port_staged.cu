// port_staged.cu: the collectives other than all-reduce and all-gather over port channels
// only, so they run on any layout of ranks over hosts (host side: port_staged.go), on the
// schedule of port_staged_device.cuh. Each pair's connection moves the bytes: the copy
// engine inside a host, Ethernet or InfiniBand between hosts. host_staged.cu runs the same
// schedule through host-resident buffers for small messages.
//
// Thread i of block 0 serves peer i: a put of my segment with a signal (a signal alone for
// an empty one). Block 0 then waits for every peer's signal and opens the gate for the
// other blocks (port_collective_device.cuh: tokens of network peers are in host memory).
// In place, the local copies of all-to-all(v) and send-receive overwrite what their puts
// read: there the put also flushes before the gate. The last block flushes (my input may
// be reused once the kernel ends) and, with the same trigger, signals each peer a credit:
// my scratch is free for its next launch.
//
// Regions, signals and credits are allgather_portput.cu's: a launch whose slots fit a half
// (halfBytes) writes the half of its launch parity, at bigBytes + (flag & 1) * halfBytes,
// at once; a larger one writes the big region at 0 after the peer's credit of its previous
// launch. Signals and credits travel on sigChans (the channels from my input) whichever
// buffer the data comes from, so peer i's semaphore counts its data of launch 1, then
// credit and data of each later launch.
#include "port_staged_device.cuh"

using namespace mb;

namespace {

// Staged is one launch's schedule.
struct Staged {
  PortChannelHandle *chans, *sigChans;
  const char* scratch;
  uint64_t bigBytes, halfBytes, slot;
  const char* in;
  char* out;
  uint64_t srcOff, unit, total;
  uint32_t mode, root, rank, nranks;
  LaunchState* state;

  uint32_t flag;
  uint64_t credit, region;

  __device__ const char* slotPtr(uint32_t from) const {
    return scratch + region + (slotsOf(mode, nranks) == 1 ? 0 : from * slot);
  }

  // exchange: the puts, then every peer's data here (on return, for the whole grid).
  __device__ void exchange(bool flushFirst) {
    const uint32_t npeers = nranks - 1;
    flag = launchFlag(state);
    credit = flag > 1 ? 1 : 0;
    const bool half = (uint64_t)slotsOf(mode, nranks) * slot <= halfBytes;
    region = half ? bigBytes + (flag & 1) * halfBytes : 0;
    if (blockIdx.x == 0 && threadIdx.x < npeers) {
      const uint32_t peer = peerRank(threadIdx.x, rank);
      PortChannel c{chans[threadIdx.x]}, sig{sigChans[threadIdx.x]};
      if (credit && !half) awaitCount(sig.h, 1);
      const Seg s = sendSeg(mode, rank, peer, unit, total, root, nranks);
      const uint64_t dst = region + (slotsOf(mode, nranks) == 1 ? 0 : rank * slot);
      if (s.bytes == 0) {
        sig.signal();
      } else if (chans == sigChans) {
        if (flushFirst) {
          c.putWithSignalAndFlush(dst, srcOff + s.off, s.bytes);
        } else {
          c.putWithSignal(dst, srcOff + s.off, s.bytes);
        }
      } else {
        c.put(dst, srcOff + s.off, s.bytes);
        sig.signal();
        if (flushFirst) c.flush();
      }
    }
    portGate(state, flag, sigChans, npeers, credit + 1);
  }

  // finish: the last block consumes the launch's signals, flushes and sends each peer its
  // credit; then the launch counts.
  __device__ void finish() {
    if (lastBlock(state) && threadIdx.x < nranks - 1) {
      PortChannel c{sigChans[threadIdx.x]};
      *reinterpret_cast<volatile uint64_t*>(c.h.sem.expected) += credit + 1;
      uint64_t pos = c.push(TRIGGER_FLAG | TRIGGER_SYNC, 0, 0, 0);
      c.fifo().sync(pos, c.h.peer, c.h.id);
    }
    finishLaunch(state, flag);
  }

  // copyAll: every segment that reaches my output, by the whole grid.
  __device__ void copyAll() {
    for (uint32_t q = 0; q < nranks; q++) {
      const Seg s = sendSeg(mode, q, rank, unit, total, root, nranks);
      if (s.bytes == 0) continue;
      const char* src = q == rank ? in + s.off : slotPtr(q);
      char* dst = out + recvOff(mode, q, rank, unit, total, nranks);
      if (src != dst) copy(dst, src, s.bytes, globalThread(), globalThreads());
    }
  }
};

}  // namespace

#define PS_PARAMS                                                                                                  \
  PortChannelHandle *chans, PortChannelHandle *sigChans, const char *scratch, uint64_t bigBytes, uint64_t halfBytes, \
      uint64_t slot, const char *in, char *out, uint64_t srcOff, uint64_t unit, uint64_t total, uint32_t mode,        \
      uint32_t root, uint32_t rank, uint32_t nranks, LaunchState *state
#define PS_INIT \
  Staged p{chans, sigChans, scratch, bigBytes, halfBytes, slot, in, out, srcOff, unit, total, mode, root, rank, nranks, state}

// port_staged: the collectives that copy (every mode but reduce-scatter and reduce).
extern "C" __global__ void __launch_bounds__(1024) port_staged(PS_PARAMS) {
  PS_INIT;
  p.exchange(in == out && (mode == PS_ALLTOALL || mode == PS_ALLTOALLV || mode == PS_SENDRECV));
  p.copyAll();
  p.finish();
}

// port_staged_reduce_<type>_<op>: reduce-scatter (my chunk of every rank's input) and
// reduce (the root reduces every rank's input), in rank order.
template <typename T, int Op>
__device__ void portStagedReduce(Staged& p) {
  p.exchange(false);
  if (p.mode == PS_REDUCESCATTER || p.rank == p.root) {
    const uint64_t mine = p.mode == PS_REDUCESCATTER ? p.rank * p.unit : 0;
    const Range share = split(p.unit, gridDim.x, blockIdx.x, 16);
    auto from = [&](uint32_t r) { return r == p.rank ? p.in + mine : p.slotPtr(r); };
    reduceSources<T, Op>(p.out, from, share.begin, share.size(), p.nranks);
  }
  p.finish();
}

#define PS_REDUCE_KERNEL(name, T, opname, OP)                                                          \
  extern "C" __global__ void __launch_bounds__(1024) port_staged_reduce_##name##_##opname(PS_PARAMS) { \
    PS_INIT;                                                                                           \
    portStagedReduce<T, OP>(p);                                                                        \
  }

#define PS_REDUCE_ALL_OPS(name, T) MB_FOR_EACH_OP(PS_REDUCE_KERNEL, name, T)
MB_FOR_EACH_TYPE(PS_REDUCE_ALL_OPS)
