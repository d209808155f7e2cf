// allgather_portput.cu: all-gather over port channels only, so it runs on any layout of
// ranks over hosts (host side: allgather_portput.go). Each pair's connection
// moves the bytes: the copy engine inside a host, Ethernet or InfiniBand between hosts.
//
// Thread i of block 0 serves peer i: one put-with-signal of my chunk into slot `rank` of
// a region of the peer's scratch. Block 0 then waits for every peer's chunk and opens the
// gate for the other blocks (port_collective_device.cuh: tokens of network peers are in host
// memory, polled by those few threads only); every block copies its share of the scratch
// slots (and, out of place, of my own chunk) into my output. The last block flushes (my
// input may be reused once the kernel ends) and, with the same trigger, signals each peer
// a credit: my scratch is free for its next launch.
//
// Regions. A launch whose gathered message fits a half (halfBytes) writes the half of
// its launch parity, at bigBytes + (flag & 1) * halfBytes; a larger one writes the big
// region at 0. A launch writes only after it received every peer's data of the previous
// launch, which each peer sent once its launch before that had ended; so only the peer's
// previous launch may still read my target region, and it read another one when both are
// halves. A half launch therefore writes at once; a big launch after the first waits for
// the peer's credit of its previous launch (one more one-way trip per launch).
//
// Signals and credits always travel on sigChans (the channels from my input), whichever
// buffer the data comes from: in place, the data goes on chans (from my output) and the
// signal follows on sigChans (a connection signals only once every earlier write of the
// pair has landed). So peer i's semaphore counts, in order, its data of launch 1, then
// credit and data of each later launch: launch k waits for count E+1 (first launch: data)
// or E+2 (credit, data), E being the expected count it starts with; a big launch first
// waits for E+1 (credit); the last block advances the count.
#include "mscclpp/port_collective_device.cuh"

using namespace mb;

extern "C" __global__ void __launch_bounds__(1024)
    allgather_portput(PortChannelHandle* chans, PortChannelHandle* sigChans, const char* scratch, uint64_t bigBytes,
                      uint64_t halfBytes, const char* in, char* out, uint64_t srcOff, uint64_t chunk, uint32_t rank,
                      uint32_t nranks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  const uint64_t credit = flag > 1 ? 1 : 0;  // signals to consume before the peer's data
  const bool half = chunk * nranks <= halfBytes;
  const uint64_t region = half ? bigBytes + (flag & 1) * halfBytes : 0;
  if (blockIdx.x == 0 && threadIdx.x < npeers) {
    PortChannel c{chans[threadIdx.x]}, sig{sigChans[threadIdx.x]};
    if (credit && !half) awaitCount(sig.h, 1);
    if (chans == sigChans) {
      c.putWithSignal(region + rank * chunk, srcOff, chunk);
    } else {
      c.put(region + rank * chunk, srcOff, chunk);
      sig.signal();
    }
  }
  portGate(state, flag, sigChans, npeers, credit + 1);
  const Range share = split(chunk, gridDim.x, blockIdx.x, 16);
  for (uint32_t r = 0; r < nranks; r++) {
    const char* src = r == rank ? in : scratch + region + r * chunk;
    char* dst = out + r * chunk;
    if (src != dst) copy(dst + share.begin, src + share.begin, share.size(), threadIdx.x, blockDim.x);
  }
  if (lastBlock(state) && threadIdx.x < npeers) {
    PortChannel c{sigChans[threadIdx.x]};
    *reinterpret_cast<volatile uint64_t*>(c.h.sem.expected) += credit + 1;
    uint64_t pos = c.push(TRIGGER_FLAG | TRIGGER_SYNC, 0, 0, 0);
    c.fifo().sync(pos, c.h.peer, c.h.id);
  }
  finishLaunch(state, flag);
}
