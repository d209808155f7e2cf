// allreduce_portoneshot.cu: all-reduce of small messages over port channels only, so it
// runs on any layout of ranks over hosts (host side: allreduce_portoneshot.go),
// in one one-way trip per launch where portrsag takes two.
//
// Thread i of block 0 puts, with a signal, my whole input into slot `rank` of half
// (flag & 1) of peer i's scratch, and flushes (in place, my output is the put's source:
// it must have left before the reduction overwrites it). Block 0 then waits for every
// peer's slot and opens the gate for the other blocks (port_collective_device.cuh: tokens
// of network peers are in host memory, polled by those few threads only); every block
// reduces its share of the message (my input and the slots, in rank order) into my output.
//
// No handshake between launches: launch k writes half k%2 of the peer's scratch only
// after my launch k-1 received the peer's data of launch k-1, which the peer sent once its
// launch k-2 (the last to read half k%2) had ended. The semaphore counts one signal per
// launch: each launch waits for E+1 and the last block advances E.
#include "mscclpp/port_collective_device.cuh"

using namespace mb;

template <typename T, int Op>
__device__ void allreducePortOneShot(PortChannelHandle* chans, const char* scratch, uint64_t slotBytes, const char* in,
                                     char* out, uint64_t inOff, uint64_t count, uint32_t rank, uint32_t nranks,
                                     LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  const uint64_t bytes = count * sizeof(T);
  const uint64_t half = (flag & 1) * nranks * slotBytes;
  if (blockIdx.x == 0 && threadIdx.x < npeers) {
    PortChannel c{chans[threadIdx.x]};
    if (bytes > 0) {
      c.putWithSignal(half + rank * slotBytes, inOff, bytes);
      c.flush();
    } else {
      c.signal();
    }
  }
  portGate(state, flag, chans, npeers, 1);
  const Range share = split(bytes, gridDim.x, blockIdx.x, 16);
  auto from = [&](uint32_t r) { return r == rank ? in : scratch + half + r * slotBytes; };
  reduceSources<T, Op>(out, from, share.begin, share.size(), nranks);
  finishPortLaunch(state, flag, chans, npeers);
}

#define PORTONESHOT_KERNEL(name, T, opname, OP)                                                                  \
  extern "C" __global__ void __launch_bounds__(1024) allreduce_portoneshot_##name##_##opname(                     \
      PortChannelHandle* chans, const char* scratch, uint64_t slotBytes, const char* in, char* out, uint64_t inOff, \
      uint64_t count, uint32_t rank, uint32_t nranks, LaunchState* state) {                                       \
    allreducePortOneShot<T, OP>(chans, scratch, slotBytes, in, out, inOff, count, rank, nranks, state);           \
  }

#define PORTONESHOT_ALL_OPS(name, T) MB_FOR_EACH_OP(PORTONESHOT_KERNEL, name, T)
MB_FOR_EACH_TYPE(PORTONESHOT_ALL_OPS)
