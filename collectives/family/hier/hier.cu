// hier.cu: hierarchical all-gather and all-reduce for jobs on several hosts with several
// ranks each (host side: collectives/allgather/allgather_hier.go,
// collectives/allreduce/allreduce_hier.go). Inside a host the ranks reach each other with
// memory channels (SM copies over NVLink); between hosts each rank talks only to its rail,
// the ranks of equal local index on the other hosts, over port channels (Ethernet or
// InfiniBand through the proxy). Every host has nlocal ranks; rank (host g, local j) is
// ranks[g * nlocal + j]. Local peer k (of nlocal - 1) is local index peerRank(k, local),
// rail peer t host peerRank(t, host).
#include "mscclpp/collective_device.cuh"

using namespace mb;

// hierPoll waits, without consuming it, until the port channel's semaphore has n signals
// more than its expected count (every block polls; one thread advances the count later).
MB_DEVICE void hierPoll(const PortChannelHandle& c, uint64_t n) {
  const uint64_t want = *reinterpret_cast<volatile uint64_t*>(c.sem.expected) + n;
  SpinGuard g;
  while (loadAcquireSys(reinterpret_cast<uint64_t*>(c.sem.inbound)) < want) {
    if (g.expired(DEVERR_SEMAPHORE_WAIT, c.peer, c.id)) break;
  }
}

// hierGridSync is a barrier of every block of the grid (grids fit on the GPU at once):
// the last block to arrive releases the others with this step's token. What a block
// wrote before it is visible to the whole system after it (the proxy's copies included).
MB_DEVICE void hierGridSync(LaunchState* g, uint32_t token) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    if (atomicAdd(&g->arrived, 1u) == gridDim.x - 1) {
      g->arrived = 0;
      __threadfence();
      atomicExch(&g->go, token);
    } else {
      SpinGuard sg;
      while (*reinterpret_cast<volatile uint32_t*>(&g->go) != token) {
        if (sg.expired(DEVERR_SEMAPHORE_WAIT, mbConfig.rank, 0xffff)) break;
      }
    }
    __threadfence();
  }
  __syncthreads();
}

// ---- All-gather ---------------------------------------------------------------------
// Every rank writes straight into its peers' outputs, so each write waits until the peer
// has entered this launch (whatever the peer did with its output before, a check or
// another collective, is over). Block 0 first signals each rail peer on sigChans that I
// have entered, and meets my host's other ranks (startBarrier); it then puts my chunk, with
// a signal, into slot `rank` of each rail peer's output once that peer's entry signal is
// there. Every block copies its share of my chunk into my output (out of place) and into
// every local peer's output over NVLink; once the rail's chunks have arrived, it forwards
// its share of each of them to every local peer as well. The last block then flushes the
// rail puts (my input may change once the kernel ends) and meets the local peers, so no
// rank returns before its output is whole. Each rail peer's semaphore counts two signals a
// launch, its entry and then its data (the peer sends its data only after my entry and its
// next entry only after its kernel ended), so the data wait is for count E+2, E being the
// expected count at entry. The data's signal travels on sigChans (from my input) whichever
// buffer the data came from, as in allgather_portput.cu.
extern "C" __global__ void __launch_bounds__(1024)
    allgather_hier(MemoryChannelHandle* localChans, PortChannelHandle* railChans, PortChannelHandle* sigChans,
                   const uint32_t* ranks, const char* in, char* out, uint64_t srcOff, uint64_t outOff, uint64_t chunk,
                   uint32_t rank, uint32_t host, uint32_t local, uint32_t nhosts, uint32_t nlocal, LaunchState* state) {
  const uint32_t nrail = nhosts - 1, nlp = nlocal - 1;
  const uint32_t flag = launchFlag(state);
  if (blockIdx.x == 0 && threadIdx.x < nrail) PortChannel{sigChans[threadIdx.x]}.signal();
  if (nlp > 0) startBarrier(state, flag, localChans, nlp);
  if (blockIdx.x == 0 && threadIdx.x < nrail) {
    PortChannel c{railChans[threadIdx.x]}, sig{sigChans[threadIdx.x]};
    hierPoll(sig.h, 1);
    if (railChans == sigChans) {
      c.putWithSignal(outOff + rank * chunk, srcOff, chunk);
    } else {
      c.put(outOff + rank * chunk, srcOff, chunk);
      sig.signal();
    }
  }
  const Range share = split(chunk, gridDim.x, blockIdx.x, 16);
  const uint32_t tid = threadIdx.x, nth = blockDim.x;
  auto toLocals = [&](const char* src, uint64_t slot) {
    for (uint32_t k = 0; k < nlp; k++) {
      char* dst = reinterpret_cast<char*>(localChans[k].remote) + outOff + slot * chunk;
      copy(dst + share.begin, src + share.begin, share.size(), tid, nth);
    }
  };
  char* mine = out + rank * chunk;
  if (in != mine) copy(mine + share.begin, in + share.begin, share.size(), tid, nth);
  toLocals(in, rank);
  if (threadIdx.x < nrail) hierPoll(sigChans[threadIdx.x], 2);
  __syncthreads();
  for (uint32_t t = 0; t < nrail; t++) {
    const uint32_t q = ranks[peerRank(t, host) * nlocal + local];
    toLocals(out + q * chunk, q);
  }
  if (lastBlock(state)) {
    if (threadIdx.x < nrail) {
      PortChannel c{sigChans[threadIdx.x]};
      *reinterpret_cast<volatile uint64_t*>(c.h.sem.expected) += 2;
      c.flush();
    }
    peerBarrier(localChans, nlp, false);
  }
  finishLaunch(state, flag);
}

// ---- All-reduce ---------------------------------------------------------------------
// hierReduce: this block's share of bytes [0, size) of a span, reduced over n sources in
// order (src(i) is source i's span), stored at dst; finished (avg divided by nranks) when
// last is set. 16-byte vectors, then the elements of a tail shorter than a vector.
template <typename T, int Op, typename Src>
MB_DEVICE void hierReduce(Src src, uint32_t n, uint64_t size, char* dst, bool last, uint32_t nranks) {
  const Range share = split(size, gridDim.x, blockIdx.x, 16);
  const uint64_t nvec = share.size() / 16;
  for (uint64_t v = threadIdx.x; v < nvec; v += blockDim.x) {
    const uint64_t o = share.begin + v * 16;
    int4 acc = *reinterpret_cast<const int4*>(src(0) + o);
    for (uint32_t i = 1; i < n; i++) acc = applyWord<T, Op>(acc, *reinterpret_cast<const int4*>(src(i) + o));
    *reinterpret_cast<int4*>(dst + o) = last ? finishWord<T, Op>(acc, nranks) : acc;
  }
  const uint64_t tail = (share.size() - nvec * 16) / sizeof(T);
  for (uint64_t e = threadIdx.x; e < tail; e += blockDim.x) {
    const uint64_t o = share.begin + nvec * 16 + e * sizeof(T);
    T acc = *reinterpret_cast<const T*>(src(0) + o);
    for (uint32_t i = 1; i < n; i++) acc = Apply<T, Op>::f(acc, *reinterpret_cast<const T*>(src(i) + o));
    *reinterpret_cast<T*>(dst + o) = last ? finish<T, Op>(acc, nranks) : acc;
  }
}

// Local index j owns shard j of the message; within it, host g owns sub-shard g (16-byte
// aligned splits). After a start barrier of the host, every block reads its share of my
// shard from each local peer's input over NVLink and reduces it, in local order, into my
// output: the host's partial result. Across hosts (after a grid barrier), block 0 puts each
// rail peer's sub-shard of the partial into slot `host` of its scratch; every block reduces
// its share of my sub-shard over the hosts, in host order; after a second grid barrier
// block 0 puts my finished sub-shard into every rail peer's output. Once the rail's
// sub-shards have arrived, every block copies its share of my shard into every local
// peer's output; the last block flushes the rail's puts and meets the local peers.
//
// Between launches: a rail peer writes my scratch in its next launch only after this one
// received my all-gather put, issued once every block has read the scratch; local peers
// touch my buffers only after the start barrier.
template <typename T, int Op>
__device__ void allreduceHier(MemoryChannelHandle* inChans, MemoryChannelHandle* outChans, PortChannelHandle* rsChans,
                              PortChannelHandle* agChans, const char* scratch, uint64_t slotBytes, const char* in,
                              char* out, uint64_t inOff, uint64_t outOff, uint64_t count, uint32_t host, uint32_t local,
                              uint32_t nhosts, uint32_t nlocal, LaunchState* states) {
  LaunchState *state = states, *grid = states + 1;  // the launches; the grid barriers
  const uint32_t nrail = nhosts - 1, nlp = nlocal - 1;
  const uint32_t nranks = nhosts * nlocal;
  const uint32_t flag = launchFlag(state);
  const Range shard = split(count * sizeof(T), nlocal, local, 16);
  if (nlp > 0) startBarrier(state, flag, inChans, nlp);
  hierReduce<T, Op>(
      [&](uint32_t j) {
        const char* base = j == local ? in : reinterpret_cast<const char*>(inChans[peerIndex(j, local)].remote) + inOff;
        return base + shard.begin;
      },
      nlocal, shard.size(), out + shard.begin, nrail == 0, nranks);
  if (nrail > 0) {
    hierGridSync(grid, flag * 4 + 1);
    if (blockIdx.x == 0 && threadIdx.x < nrail) {
      const Range sub = split(shard.size(), nhosts, peerRank(threadIdx.x, host), 16);
      PortChannel c{rsChans[threadIdx.x]};
      if (sub.size() > 0) {
        c.putWithSignal(host * slotBytes, outOff + shard.begin + sub.begin, sub.size());
      } else {
        c.signal();
      }
    }
    if (threadIdx.x < nrail) hierPoll(rsChans[threadIdx.x], 1);
    __syncthreads();
    const Range mine = split(shard.size(), nhosts, host, 16);
    char* myPart = out + shard.begin + mine.begin;
    hierReduce<T, Op>([&](uint32_t g) { return g == host ? myPart : scratch + g * slotBytes; }, nhosts, mine.size(),
                      myPart, true, nranks);
    hierGridSync(grid, flag * 4 + 2);
    if (blockIdx.x == 0 && threadIdx.x < nrail) {
      PortChannel c{agChans[threadIdx.x]};
      const uint64_t off = outOff + shard.begin + mine.begin;
      if (mine.size() > 0) {
        c.putWithSignal(off, off, mine.size());
      } else {
        c.signal();
      }
    }
    if (threadIdx.x < nrail) hierPoll(agChans[threadIdx.x], 1);
    __syncthreads();
  }
  const Range share = split(shard.size(), gridDim.x, blockIdx.x, 16);
  for (uint32_t k = 0; k < nlp; k++) {
    char* dst = reinterpret_cast<char*>(outChans[k].remote) + outOff + shard.begin;
    copy(dst + share.begin, out + shard.begin + share.begin, share.size(), threadIdx.x, blockDim.x);
  }
  if (lastBlock(state)) {
    if (threadIdx.x < nrail) {
      *reinterpret_cast<volatile uint64_t*>(rsChans[threadIdx.x].sem.expected) += 1;
      *reinterpret_cast<volatile uint64_t*>(agChans[threadIdx.x].sem.expected) += 1;
      PortChannel{agChans[threadIdx.x]}.flush();
    }
    peerBarrier(outChans, nlp, false);
  }
  finishLaunch(state, flag);
}

#define HIER_KERNEL(name, T, opname, OP)                                                                              \
  extern "C" __global__ void __launch_bounds__(1024) allreduce_hier_##name##_##opname(                               \
      MemoryChannelHandle* inChans, MemoryChannelHandle* outChans, PortChannelHandle* rsChans,                        \
      PortChannelHandle* agChans, const char* scratch, uint64_t slotBytes, const char* in, char* out, uint64_t inOff, \
      uint64_t outOff, uint64_t count, uint32_t host, uint32_t local, uint32_t nhosts, uint32_t nlocal,              \
      LaunchState* states) {                                                                                          \
    allreduceHier<T, OP>(inChans, outChans, rsChans, agChans, scratch, slotBytes, in, out, inOff, outOff, count,     \
                         host, local, nhosts, nlocal, states);                                                        \
  }

#define HIER_ALL_OPS(name, T) MB_FOR_EACH_OP(HIER_KERNEL, name, T)
MB_FOR_EACH_TYPE(HIER_ALL_OPS)
