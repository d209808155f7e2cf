// allreduce.cu: all-reduce kernels (host side: allreduce_*.go), instantiated for
// every element type and operator. Every rank reduces in rank order (rank 0's value first),
// so all ranks produce bit-identical results. `count` elements; `in` is this rank's input
// (in place: in == out).
#include "mscclpp/collective_device.cuh"

using namespace mb;

// ---- One shot with LL packets --------------------------------------------------------
// Each thread takes packet-sized units of the whole buffer: it sends its units to every
// peer as packets (scratch slot `rank`, half by launch parity), then reduces them with the
// peers' packets in rank order and stores the result.
template <typename T, int Op, typename P>
__device__ void allreduceOneShot(MemoryChannelHandle* chans, const char* scratch, uint64_t slotBytes, const char* in,
                                 char* out, uint64_t count, uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t flag = launchFlag(state);
  const uint64_t half = (uint64_t)(flag & 1) * nranks * slotBytes;
  const uint64_t bytes = count * sizeof(T);
  const uint64_t units = (bytes + P::kDataBytes - 1) / P::kDataBytes;
  const uint64_t tid = globalThread(), nth = globalThreads();
  for (uint64_t u = tid; u < units; u += nth) {
    const uint64_t off = u * P::kDataBytes;
    const uint32_t valid = (uint32_t)min((uint64_t)P::kDataBytes, bytes - off);
    typename P::Payload mine = loadPayload<P>(in + off, valid);
    for (uint32_t i = 0; i + 1 < nranks; i++) {
      P::write(reinterpret_cast<char*>(chans[i].remote) + half + rank * slotBytes + u * P::kPacketBytes, mine, flag);
    }
    typename P::Payload acc;
    for (uint32_t r = 0; r < nranks; r++) {
      typename P::Payload v = mine;
      if (r != rank) {
        v = readPacket<P>(scratch + half + r * slotBytes + u * P::kPacketBytes, flag, r,
                          chans[peerIndex(r, rank)].index);
      }
      acc = r == 0 ? v : applyWord<T, Op>(acc, v);
    }
    storePayload<P>(out + off, finishWord<T, Op>(acc, nranks), valid);
  }
  finishLaunch(state, flag);
}

// ---- Two steps with LL16 packets -----------------------------------------------------
// Rank c owns chunk c (count split in 8-byte units). Step 1: send chunk c of my input to
// rank c as packets. Step 2: reduce my chunk in rank order, store it, and send the result
// as packets to every peer (second scratch region). Step 3: unpack the peers' results.
template <typename T, int Op>
__device__ void allreduceTwoStep(MemoryChannelHandle* chans, const char* scratch, uint64_t slotBytes, const char* in,
                                 char* out, uint64_t count, uint32_t rank, uint32_t nranks, LaunchState* state) {
  using P = LL16;
  const uint32_t flag = launchFlag(state);
  const uint64_t region = (uint64_t)nranks * slotBytes;  // one step's slots
  const uint64_t half = (uint64_t)(flag & 1) * 2 * region;
  const uint64_t bytes = count * sizeof(T);
  const uint64_t tid = globalThread(), nth = globalThreads();
  auto chunkOf = [&](uint32_t c) { return split(bytes, nranks, c, P::kDataBytes); };
  // step 1
  for (uint32_t i = 0; i + 1 < nranks; i++) {
    uint32_t c = peerRank(i, rank);
    Range rc = chunkOf(c);
    char* dst = reinterpret_cast<char*>(chans[i].remote) + half + rank * slotBytes;
    putPackets<P>(dst, in + rc.begin, rc.size(), flag, tid, nth);
  }
  // step 2
  Range mine = chunkOf(rank);
  const uint64_t units = (mine.size() + P::kDataBytes - 1) / P::kDataBytes;
  for (uint64_t u = tid; u < units; u += nth) {
    const uint64_t off = u * P::kDataBytes;
    const uint32_t valid = (uint32_t)min((uint64_t)P::kDataBytes, mine.size() - off);
    typename P::Payload acc;
    for (uint32_t r = 0; r < nranks; r++) {
      typename P::Payload v;
      if (r == rank) {
        v = loadPayload<P>(in + mine.begin + off, valid);
      } else {
        v = readPacket<P>(scratch + half + r * slotBytes + u * P::kPacketBytes, flag, r,
                          chans[peerIndex(r, rank)].index);
      }
      acc = r == 0 ? v : applyWord<T, Op>(acc, v);
    }
    acc = finishWord<T, Op>(acc, nranks);
    storePayload<P>(out + mine.begin + off, acc, valid);
    for (uint32_t i = 0; i + 1 < nranks; i++) {
      P::write(reinterpret_cast<char*>(chans[i].remote) + half + region + rank * slotBytes + u * P::kPacketBytes, acc,
               flag);
    }
  }
  // step 3
  for (uint32_t i = 0; i + 1 < nranks; i++) {
    uint32_t q = peerRank(i, rank);
    Range rq = chunkOf(q);
    unpackPackets<P>(out + rq.begin, scratch + half + region + q * slotBytes, rq.size(), flag, tid, nth, q,
                     chans[i].index);
  }
  finishLaunch(state, flag);
}

// ---- Reduce and broadcast with 16-byte vectors ------------------------------------------
// reduceBroadcast is the SM loop of rsag and port. Bytes [first, first + bytes) are cut into
// `pieces` pieces of pieceBytes; for each piece k, once wait(k) has returned, this block
// reduces its share of the piece in rank order (offset o is at src(r) + o in rank r's copy)
// and stores the result at out + dstShift + o and at outChans[i].remote + outOff + dstShift
// + o for every peer i. 16-byte vectors, U loads in flight per thread before any is used,
// then single vectors; the tail that is not a whole vector (only at the end of the data),
// element by element, as is everything when vec is false: the caller's buffers are off
// 16-byte alignment (-u). vec is worked out from the kernel's arguments, not from the
// channels' handles: loading those first put a global load before the first data load
// (2 MiB rsag out of place measured ~2 us slower so). The piece loop is in the helper on purpose: port at its 64-register
// limit compiled a helper called from inside its piece loop with spills in the hot loop
// (the avg kernels); this way port's machine code is what its own copy of the loops gave.
template <typename T, int Op, typename Src, typename Wait>
MB_DEVICE void reduceBroadcast(Src src, Wait wait, uint32_t nranks, uint64_t first, uint64_t bytes, uint64_t pieces,
                               uint64_t pieceBytes, char* out, uint64_t dstShift, MemoryChannelHandle* outChans,
                               uint64_t outOff, bool vec) {
  const uint32_t npeers = nranks - 1;
  constexpr int U = 4;
  const uint64_t bd = blockDim.x;
  for (uint64_t k = 0; k < pieces; k++) {
    wait(k);
    const uint64_t pBegin = k * pieceBytes, pSize = min(pieceBytes, bytes - pBegin);
    const Range share = split(pSize, gridDim.x, blockIdx.x, 16);
    const uint64_t begin = first + pBegin + share.begin;
    const uint64_t nvec = vec ? share.size() / 16 : 0;
    uint64_t v = threadIdx.x;
    for (; v + (U - 1) * bd < nvec; v += U * bd) {
      int4 acc[U];
      for (uint32_t r = 0; r < nranks; r++) {
        const char* s = src(r);
        int4 x[U];
#pragma unroll
        for (int u = 0; u < U; u++) x[u] = *reinterpret_cast<const int4*>(s + begin + (v + u * bd) * 16);
#pragma unroll
        for (int u = 0; u < U; u++) acc[u] = r == 0 ? x[u] : applyWord<T, Op>(acc[u], x[u]);
      }
#pragma unroll
      for (int u = 0; u < U; u++) {
        const uint64_t o = dstShift + begin + (v + u * bd) * 16;
        acc[u] = finishWord<T, Op>(acc[u], nranks);
        *reinterpret_cast<int4*>(out + o) = acc[u];
        for (uint32_t i = 0; i < npeers; i++) {
          *reinterpret_cast<int4*>(reinterpret_cast<char*>(outChans[i].remote) + outOff + o) = acc[u];
        }
      }
    }
    for (; v < nvec; v += bd) {
      int4 acc;
      for (uint32_t r = 0; r < nranks; r++) {
        int4 x = *reinterpret_cast<const int4*>(src(r) + begin + v * 16);
        acc = r == 0 ? x : applyWord<T, Op>(acc, x);
      }
      const uint64_t o = dstShift + begin + v * 16;
      acc = finishWord<T, Op>(acc, nranks);
      *reinterpret_cast<int4*>(out + o) = acc;
      for (uint32_t i = 0; i < npeers; i++) {
        *reinterpret_cast<int4*>(reinterpret_cast<char*>(outChans[i].remote) + outOff + o) = acc;
      }
    }
    const uint64_t tail = share.size() - nvec * 16;
    for (uint64_t e = threadIdx.x; e < tail / sizeof(T); e += bd) {
      const uint64_t w = begin + nvec * 16 + e * sizeof(T);
      T acc;
      for (uint32_t r = 0; r < nranks; r++) {
        T x = *reinterpret_cast<const T*>(src(r) + w);
        acc = r == 0 ? x : Apply<T, Op>::f(acc, x);
      }
      acc = finish<T, Op>(acc, nranks);
      *reinterpret_cast<T*>(out + dstShift + w) = acc;
      for (uint32_t i = 0; i < npeers; i++) {
        *reinterpret_cast<T*>(reinterpret_cast<char*>(outChans[i].remote) + outOff + dstShift + w) = acc;
      }
    }
  }
}

// ---- Read-reduce-scatter + all-gather over memory channels ---------------------------
// After a start barrier (peers' inputs ready), rank c reads chunk c from every peer's input,
// reduces in rank order with 16-byte vectors, and writes the result to its own output and to
// every peer's output. An end barrier keeps inputs alive until everyone has read them, and
// makes every peer's writes into my output visible.
template <typename T, int Op>
__device__ void allreduceReadReduce(MemoryChannelHandle* inChans, MemoryChannelHandle* outChans, const char* in,
                                    char* out, uint64_t inOff, uint64_t outOff, uint64_t count, uint32_t rank,
                                    uint32_t nranks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  startBarrier(state, flag, outChans, npeers);
  const uint64_t bytes = count * sizeof(T);
  const Range mine = split(bytes, nranks, rank, 16);
  // my input, or a peer's at the same offset
  auto src = [&](uint32_t r) {
    return r == rank ? in : reinterpret_cast<const char*>(inChans[peerIndex(r, rank)].remote) + inOff;
  };
  // the peers' buffers are allocations (256-byte aligned) at inOff and outOff
  const bool vec = ((reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out) | inOff | outOff) & 15) == 0;
  // my chunk in one piece, nothing to wait for; inputs and outputs at the same offsets
  reduceBroadcast<T, Op>(src, [](uint64_t) {}, nranks, mine.begin, mine.size(), 1, mine.size(), out, 0, outChans,
                         outOff, vec);
  endBarrier(state, outChans, npeers);
  finishLaunch(state, flag);
}

// ---- Copy-engine reduce-scatter, SM all-gather, pipelined -------------------------------
// Rank c owns chunk c. Block 0 has the proxy copy, piece by piece, every peer's chunk of my
// input into that peer's scratch (slot = my rank) with the copy engine. Every block waits
// for each piece of my chunk to arrive from every peer, reduces its share in rank order,
// and writes the result to my output and straight into every peer's output over NVLink. So
// the copy engine and the SMs share the link. Each block then signals the peers; the last
// block waits for all of theirs and accounts for the pieces received. It does not flush my
// copies: a peer signals only after it has waited for every piece of mine, and the proxy
// signals a piece only once its copy has completed, so my input is no longer read.
// Pieces are counted against the port channel's expected counter, read by every block and
// advanced once at the end, so any number of blocks can wait on one semaphore.
template <typename T, int Op>
__device__ void allreducePort(PortChannelHandle* rsChans, MemoryChannelHandle* outChans, const char* scratch,
                              uint64_t slotBytes, const char* in, char* out, uint64_t inOff, uint64_t outOff,
                              uint64_t count, uint64_t pieceBytes, uint32_t rank, uint32_t nranks, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint64_t bytes = count * sizeof(T);
  auto chunkOf = [&](uint32_t c) { return split(bytes, nranks, c, 16); };
  const Range mine = chunkOf(rank);
  if (blockIdx.x == 0 && threadIdx.x < npeers) {
    const Range rq = chunkOf(peerRank(threadIdx.x, rank));
    PortChannel c{rsChans[threadIdx.x]};
    for (uint64_t off = 0; off < rq.size(); off += pieceBytes) {
      c.putWithSignal(rank * slotBytes + off, inOff + rq.begin + off, min(pieceBytes, rq.size() - off));
    }
  }
  const uint64_t pieces = (mine.size() + pieceBytes - 1) / pieceBytes;
  // my chunk of my input, or what a peer's proxy copied of its input into my scratch
  auto src = [&](uint32_t r) { return r == rank ? in + mine.begin : scratch + r * slotBytes; };
  // piece k has arrived from every peer
  auto wait = [&](uint64_t k) {
    if (threadIdx.x < npeers) {
      const HostSemaphoreHandle& h = rsChans[threadIdx.x].sem;
      const uint64_t want = *reinterpret_cast<volatile uint64_t*>(h.expected) + k + 1;
      SpinGuard g;
      while (loadAcquireSys(reinterpret_cast<uint64_t*>(h.inbound)) < want) {
        if (g.expired(DEVERR_SEMAPHORE_WAIT, rsChans[threadIdx.x].peer, rsChans[threadIdx.x].id)) break;
      }
    }
    __syncthreads();
  };
  // scratch slots are aligned; the peers' outputs are allocations at outOff
  const bool vec = ((reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out) | reinterpret_cast<uintptr_t>(scratch) |
                     slotBytes | outOff) & 15) == 0;
  // offsets within my chunk; my chunk of the outputs is at mine.begin
  reduceBroadcast<T, Op>(src, wait, nranks, 0, mine.size(), pieces, pieceBytes, out, mine.begin, outChans, outOff, vec);
  __syncthreads();
  if (threadIdx.x < npeers) MemoryChannel{outChans[threadIdx.x]}.signal();
  if (lastBlock(state) && threadIdx.x < npeers) {
    MemoryChannel{outChans[threadIdx.x]}.waitN(gridDim.x);
    *reinterpret_cast<volatile uint64_t*>(rsChans[threadIdx.x].sem.expected) += pieces;
  }
}

#define AR_KERNELS(name, T, opname, OP)                                                                             \
  extern "C" __global__ void __launch_bounds__(1024) allreduce_ll16_##name##_##opname(                              \
      MemoryChannelHandle* chans, const char* scratch, uint64_t slotBytes, const char* in, char* out,               \
      uint64_t count, uint32_t rank, uint32_t nranks, LaunchState* state) {                                         \
    allreduceOneShot<T, OP, LL16>(chans, scratch, slotBytes, in, out, count, rank, nranks, state);                  \
  }                                                                                                                 \
  extern "C" __global__ void __launch_bounds__(1024) allreduce_ll16x2_##name##_##opname(                            \
      MemoryChannelHandle* chans, const char* scratch, uint64_t slotBytes, const char* in, char* out,               \
      uint64_t count, uint32_t rank, uint32_t nranks, LaunchState* state) {                                         \
    allreduceTwoStep<T, OP>(chans, scratch, slotBytes, in, out, count, rank, nranks, state);                        \
  }                                                                                                                 \
  extern "C" __global__ void __launch_bounds__(1024, 1) allreduce_rsag_##name##_##opname(                           \
      MemoryChannelHandle* inChans, MemoryChannelHandle* outChans, const char* in, char* out, uint64_t inOff,       \
      uint64_t outOff, uint64_t count, uint32_t rank, uint32_t nranks, LaunchState* state) {                        \
    allreduceReadReduce<T, OP>(inChans, outChans, in, out, inOff, outOff, count, rank, nranks, state);              \
  }                                                                                                                 \
  extern "C" __global__ void __launch_bounds__(1024, 1) allreduce_port_##name##_##opname(                           \
      PortChannelHandle* rsChans, MemoryChannelHandle* outChans, const char* scratch, uint64_t slotBytes,           \
      const char* in, char* out, uint64_t inOff, uint64_t outOff, uint64_t count, uint64_t pieceBytes,              \
      uint32_t rank, uint32_t nranks, LaunchState* state) {                                                         \
    allreducePort<T, OP>(rsChans, outChans, scratch, slotBytes, in, out, inOff, outOff, count, pieceBytes, rank,    \
                         nranks, state);                                                                            \
  }

// LL8 carries 4 bytes per packet: types of up to 4 bytes only (allreduce_ll.go
// ll8Types; TestKernelTypes checks this list against it).
#define AR_LL8_KERNEL(name, T, opname, OP)                                                                          \
  extern "C" __global__ void __launch_bounds__(1024) allreduce_ll8_##name##_##opname(                               \
      MemoryChannelHandle* chans, const char* scratch, uint64_t slotBytes, const char* in, char* out,               \
      uint64_t count, uint32_t rank, uint32_t nranks, LaunchState* state) {                                         \
    allreduceOneShot<T, OP, LL8>(chans, scratch, slotBytes, in, out, count, rank, nranks, state);                   \
  }

#define AR_ALL_OPS(name, T) MB_FOR_EACH_OP(AR_KERNELS, name, T)
MB_FOR_EACH_TYPE(AR_ALL_OPS)

#define AR_LL8_ALL_OPS(name, T) MB_FOR_EACH_OP(AR_LL8_KERNEL, name, T)
AR_LL8_ALL_OPS(int8, int8_t)
AR_LL8_ALL_OPS(uint8, uint8_t)
AR_LL8_ALL_OPS(int32, int32_t)
AR_LL8_ALL_OPS(uint32, uint32_t)
AR_LL8_ALL_OPS(half, __half)
AR_LL8_ALL_OPS(float, float)
AR_LL8_ALL_OPS(bfloat16, __nv_bfloat16)
