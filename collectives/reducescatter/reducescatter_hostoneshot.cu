// reducescatter_hostoneshot.cu: reduce-scatter of small messages between ranks that are
// all connected over a network transport (host side: reducescatter_hostoneshot.go),
// through host-resident buffers as allreduce's hostoneshot (allreduce_hostoneshot.cu,
// whose comment says why the reads and the halves need no more ordering): block 0 copies
// my whole input into half (flag & 1) of my host-resident outbox and meets at its barrier;
// thread i then puts, with a signal, peer i's block of it (peer p's block is p blocks in)
// into slot `rank` of half (flag & 1) of peer i's host-resident scratch. Block 0 waits for
// every peer's signal and opens the gate (hostGate); every block then reduces its share of
// my block, my input's from GPU memory and the peers' from their slots, in rank order.
//
// One launch, one signal per pair, no credit or region bookkeeping: the port-staged
// family's hostput (host_staged.cu) keeps those so that rooted collectives pipeline across
// launches, which a reduce-scatter, where every rank sends every other, cannot use.
//
// In place my output is my own block of my input, which no put reads: block 0 copies the
// input into the outbox before the gate, and the blocks write my output only after it.
#include "mscclpp/host_resident_device.cuh"

using namespace mb;

template <typename T, int Op>
__device__ void reducescatterHostOneShot(PortChannelHandle* chans, char* outbox, const char* scratch,
                                         uint64_t slotBytes, const char* in, char* out, uint64_t count, uint32_t rank,
                                         uint32_t nranks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  const uint64_t bytes = count * sizeof(T);  // a block: each rank's output
  const uint64_t half = (flag & 1) * nranks * slotBytes;
  const uint64_t box = (flag & 1) * slotBytes;
  if (blockIdx.x == 0) {
    fillOutbox(outbox + box, in, nranks * bytes);
    if (threadIdx.x < npeers) {
      PortChannel c{chans[threadIdx.x]};
      if (bytes == 0) {
        c.signal();
      } else {
        c.putWithSignal(half + rank * slotBytes, box + chans[threadIdx.x].peer * bytes, bytes);
      }
    }
  }
  hostGate(state, flag, chans, npeers, 1);
  const Range share = split(bytes, gridDim.x, blockIdx.x, 16);
  auto from = [&](uint32_t r) { return r == rank ? in + rank * bytes : scratch + half + r * slotBytes; };
  reduceHost<T, Op>(out, from, nranks, rank, share.begin, share.size(), nranks);
  finishPortLaunch(state, flag, chans, npeers);
}

#define RS_HOSTONESHOT_KERNEL(name, T, opname, OP)                                                                 \
  extern "C" __global__ void __launch_bounds__(1024) reducescatter_hostoneshot_##name##_##opname(                  \
      PortChannelHandle* chans, char* outbox, const char* scratch, uint64_t slotBytes, const char* in, char* out,  \
      uint64_t count, uint32_t rank, uint32_t nranks, LaunchState* state) {                                        \
    reducescatterHostOneShot<T, OP>(chans, outbox, scratch, slotBytes, in, out, count, rank, nranks, state);       \
  }

#define RS_HOSTONESHOT_ALL_OPS(name, T) MB_FOR_EACH_OP(RS_HOSTONESHOT_KERNEL, name, T)
MB_FOR_EACH_TYPE(RS_HOSTONESHOT_ALL_OPS)
