// allreduce_portrsag.cu: all-reduce over port channels only, so it runs on any layout of
// ranks over hosts (host side: allreduce_portrsag.go). Each pair's connection
// moves the bytes: the copy engine inside a host, Ethernet or InfiniBand between hosts.
//
// Rank c owns chunk c of the message (16-byte aligned split). Reduce-scatter: thread i of
// block 0 puts, with a signal, peer i's chunk of my input into slot `rank` of the peer's
// scratch. Block 0 waits for every peer's slot; every block reduces its share of my chunk (my input
// and the slots, in rank order) into my output. All-gather: the last block puts my reduced
// chunk, with a signal, into every peer's output, waits for every peer's chunk, and flushes.
//
// No handshake is needed between launches: a peer writes my scratch in its launch k+1 only
// after its launch k received my all-gather put, which I issue once my launch k has read
// the scratch; and it writes my output only after reducing my launch k+1's data.
// The reduce-scatter semaphore is polled by block 0 only, which then opens the gate for the
// other blocks (port_collective_device.cuh: tokens of network peers are in host memory): it
// waits for count E+1 (E: the expected count at the launch's start) and the last block
// advances it.
#include "mscclpp/port_collective_device.cuh"

using namespace mb;

template <typename T, int Op>
__device__ void allreducePortRSAG(PortChannelHandle* rsChans, PortChannelHandle* agChans, const char* scratch,
                                  uint64_t slotBytes, const char* in, char* out, uint64_t inOff, uint64_t outOff,
                                  uint64_t count, uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  const uint64_t bytes = count * sizeof(T);
  const Range mine = split(bytes, nranks, rank, 16);
  if (blockIdx.x == 0 && threadIdx.x < npeers) {
    const Range theirs = split(bytes, nranks, peerRank(threadIdx.x, rank), 16);
    PortChannel c{rsChans[threadIdx.x]};
    if (theirs.size() > 0) {
      c.putWithSignal(rank * slotBytes, inOff + theirs.begin, theirs.size());
    } else {
      c.signal();
    }
  }
  portGate(state, flag, rsChans, npeers, 1);
  const Range share = split(mine.size(), gridDim.x, blockIdx.x, 16);
  auto from = [&](uint32_t r) { return r == rank ? in + mine.begin : scratch + r * slotBytes; };
  reduceSources<T, Op>(out + mine.begin, from, share.begin, share.size(), nranks);
  if (lastBlock(state) && threadIdx.x < npeers) {
    *reinterpret_cast<volatile uint64_t*>(rsChans[threadIdx.x].sem.expected) += 1;
    PortChannel c{agChans[threadIdx.x]};
    if (mine.size() > 0) {
      c.putWithSignal(outOff + mine.begin, outOff + mine.begin, mine.size());
    } else {
      c.signal();
    }
    c.wait();
    c.flush();
  }
  finishLaunch(state, flag);
}

#define PORTRSAG_KERNEL(name, T, opname, OP)                                                                      \
  extern "C" __global__ void __launch_bounds__(1024) allreduce_portrsag_##name##_##opname(                         \
      PortChannelHandle* rsChans, PortChannelHandle* agChans, const char* scratch, uint64_t slotBytes,             \
      const char* in, char* out, uint64_t inOff, uint64_t outOff, uint64_t count, uint32_t rank, uint32_t nranks, \
      LaunchState* state) {                                                                                        \
    allreducePortRSAG<T, OP>(rsChans, agChans, scratch, slotBytes, in, out, inOff, outOff, count, rank, nranks,    \
                             state);                                                                               \
  }

#define PORTRSAG_ALL_OPS(name, T) MB_FOR_EACH_OP(PORTRSAG_KERNEL, name, T)
MB_FOR_EACH_TYPE(PORTRSAG_ALL_OPS)
