// host_staged.cu: the host-resident variant of port_staged.cu's collectives, and of
// all-gather and all-reduce, for small messages across hosts (broadcast's up to 64 MiB).
//
// host_staged and host_staged_reduce_* (host side: host_staged.go) are
// port_staged_device.cuh's schedule (and, for all-reduce, a one-shot one: PS_ALLREDUCE,
// whose segment to every peer is my whole input) for small messages between ranks over a
// network transport, with both ends of every put in host-resident memory
// (channels.Mesh.ShareHost), so that no CUDA call is on the proxy's or the receiver's path:
// block 0 copies each network peer's segment into its slot of this launch's region of my
// host-resident outbox (one slot for all where every peer gets the same segment, and for
// send-receive's one receiver) and puts
// each, with a signal, into my slot of the same region of the peer's host-resident scratch
// (a signal alone for an empty segment); a segment over hsChunk goes in chunks, each put
// as soon as block 0 has copied it, the signal with the last (broadcast's hostput takes
// such messages). A peer of my host connected by CUDA IPC (a
// memChans entry with a remote address) gets its segment from block 0 straight into my slot
// of the same region of its GPU-memory scratch (local) over NVLink, then a memory-channel
// signal; its entry in chans carries that channel's semaphore, so the waits and the counts
// treat every peer alike. Block 0 then waits only for the peers that send me a segment in
// this launch (in a warp of its own, while the first warp pushes the triggers); after that
// gate every block reads its share of their slots with ld.global.cv (copyFresh, or
// copyPieces for small aligned segments; reduceHost); host_resident_device.cuh says why no
// stale line can be read.
//
// No thread fences at system scope (host_resident_device.cuh says why): after writing my
// outbox, the NVLink peers' local or a forward, block 0 meets at its barrier and one thread
// per peer then pushes the trigger or signals (releases at system scope); after a token's
// acquire read, the block's barrier or the grid's gate orders the other threads' reads.
//
// Regions and credits. Outbox, scratch and local are each cut into depth regions of slots
// of 2 * slotBytes / depth bytes (the host picks depth 8 where the launch's largest
// segment fits an eighth-sized slot, else 2). Every pair exchanges exactly one signal per
// launch, sent near its start, so peer q's count reaching m+1 says q has started launch
// m+1: its launch m has ended, it has read what launch m put in its scratch, and it had
// received my launch m data (my proxy had read that outbox region). parts[] records, for
// each eighth of the buffers, the last launch that wrote it (the same on every rank: every
// rank runs the same sizes in the same order). A launch takes the region whose eighths
// were written longest ago, never one the launch before wrote, and before writing anything
// block 0 waits until every peer's count reaches last + 1 for the last launch that wrote
// those eighths. Nothing else waits: a rank that sends a peer nothing does not wait for
// it, so launches of a rooted collective or a ring pipeline up to depth - 1 deep instead
// of crossing the network once per launch. In place, my input is in the outbox and the
// NVLink peers' scratch before the gate opens, so no block overwrites what a put still
// reads.
//
// Streaming. Each chunk but a segment's last goes with a signal on the pair's progress
// channel (a second port channel over the same connection, with a semaphore of its own),
// so that a receiver whose network peers send it segments of several chunks reads them
// round by round as they land instead of after the whole launch's data: block 1 waits for
// each round's signals and tells the other blocks, which copy (or reduce) that round's
// chunks while the network carries the next (streamed, copyStreamed). The launch's one
// signal per pair, and with it every credit below, is unchanged; the last block advances
// each progress count by the chunks signalled there.
//
// Rail routing (railput, host_rail.go: the rank table ranks set) is the same schedule with
// the network only along rails: a rank puts one bundle per other host to its rail peer
// there, which forwards the bundle's segments over NVLink to its host's ranks before it
// signals them (exchangeRail). Every count, credit and region above holds over the linked
// peers: my host's ranks and my rail. Reduce-scatter and reduce under rail routing sum
// inside the host first instead (exchangeHostFirst): one partial per host crosses the
// network where each rank's segment did.
#include "port_staged_device.cuh"

using namespace mb;

namespace {

// sameToAll says every peer receives the same segment of my input (one outbox slot).
__device__ __forceinline__ bool sameToAll(uint32_t mode) {
  return mode == PS_BROADCAST || mode == PS_ALLGATHER || mode == PS_ALLREDUCE;
}

// hsParts is how many parts of the host-resident buffers parts[] tracks (the deepest
// depth).
constexpr uint32_t hsParts = 8;

// hsChunk is the most bytes of a peer's segment that block 0 copies into the outbox before
// it puts them: a segment over it goes in chunks of hsChunk (exchange), so that the network
// carries one chunk while block 0 copies the next. 4 MiB is not tuned (no other size was
// measured): with the Ethernet transport's 12 data sockets (up to 16) its pieces stay at
// or above ethernet.SpreadPiece, so every chunk but perhaps the last, which may be a few
// bytes, goes to every data socket.
constexpr uint64_t hsChunk = 4ull << 20;

// chunksOf is how many puts a segment of bytes goes in (exchange): one per hsChunk, none for
// an empty one.
__device__ __forceinline__ uint64_t chunksOf(uint64_t bytes) { return (bytes + hsChunk - 1) / hsChunk; }

// hsTableRanks is how many ranks' lookups a block keeps in shared memory (HSTable).
constexpr uint32_t hsTableRanks = 64;

// Piece is one copy of a list that copyPieces makes: bytes from src to dst, src read with
// loadFresh where fresh (a peer's slot).
struct Piece {
  char* dst;
  const char* src;
  uint64_t bytes;
  bool fresh;
};

// HSTable holds what a launch looks up again and again in its loops over peers: each
// peer's CUDA IPC address (MemoryChannelHandle::remote), rail routing's rank table and
// the pieces of the copy under way (copyPieces). A block's threads fill it together, so
// that a loop over the peers waits neither for one load of device memory per peer nor
// for one peer's bookkeeping after another.
struct HSTable {
  uint64_t remote[hsTableRanks];
  uint32_t ranks[2 * hsTableRanks];
  Piece pieces[2 * hsTableRanks];
};

// copyBatch is how many pieces copyPieces loads before it stores any.
constexpr uint32_t copyBatch = 4;

// copyPieces copies pieces piece(0), ..., piece(n - 1) with thread t of threads, where each
// is 16-byte aligned and at most one 16-byte word a thread. Thread k of the block works
// out piece k into the block's table, then thread t loads word t of up to copyBatch pieces
// before it stores any, so that their loads (over PCIe from host memory, over NVLink or
// from device memory, each a round trip of about 0.3-2 us) are in flight together rather
// than one after another. Where some piece does not fit that, it copies nothing and
// returns false. Every thread of the block calls it; the table is free again after the
// block's next barrier.
template <typename PieceOf>
__device__ bool copyPieces(uint32_t n, PieceOf piece, uint64_t t, uint64_t threads, HSTable& table) {
  if (n > 2 * hsTableRanks || n > blockDim.x) return false;
  bool fits = true;
  if (threadIdx.x < n) {
    const Piece p = piece(threadIdx.x);
    table.pieces[threadIdx.x] = p;
    const uintptr_t bits = reinterpret_cast<uintptr_t>(p.dst) | reinterpret_cast<uintptr_t>(p.src) | p.bytes;
    fits = p.bytes == 0 || ((bits & 15) == 0 && p.bytes <= 16 * threads);
  }
  if (!__syncthreads_and(fits)) return false;
  const uint64_t at = 16 * t;
  for (uint32_t k0 = 0; k0 < n; k0 += copyBatch) {
    int4 w[copyBatch];
#pragma unroll
    for (uint32_t j = 0; j < copyBatch; j++) {
      if (k0 + j >= n) break;
      const Piece& p = table.pieces[k0 + j];
      if (at < p.bytes && p.src != p.dst) {
        const int4* src = reinterpret_cast<const int4*>(p.src + at);
        w[j] = p.fresh ? loadFresh(src) : *src;
      }
    }
#pragma unroll
    for (uint32_t j = 0; j < copyBatch; j++) {
      if (k0 + j >= n) break;
      const Piece& p = table.pieces[k0 + j];
      if (at < p.bytes && p.src != p.dst) *reinterpret_cast<int4*>(p.dst + at) = w[j];
    }
  }
  return true;
}

// HostStaged is one launch of the host-resident schedule.
struct HostStaged {
  PortChannelHandle* chans;
  MemoryChannelHandle* mems;  // null where no pair uses CUDA IPC; else entry i's remote is 0 for a network peer
  char* outbox;
  const char* scratch;
  const char* local;  // the GPU-memory scratch the peers over CUDA IPC write into, laid out as scratch
  uint64_t slotBytes;
  const char* in;
  char* out;
  uint64_t unit, total;
  uint32_t mode, root, rank, nranks, depth;
  LaunchState* state;
  uint32_t* parts;  // per eighth of the buffers, the last launch that wrote it (0: none); then this launch's
                    // region, a word of padding and each peer's signal count last seen (seen)
  const uint32_t* ranks;  // rail routing (null: none): ranks by host and local index, then each rank's position
  uint32_t nlocal;        // ranks per host (rail routing)
  PortChannelHandle* progress;  // a second channel to each network peer, counting chunks (null: rail routing)

  uint32_t flag;
  uint64_t stride, region;
  bool stream = false;      // this launch receives round by round (exchange, streamed)
  bool reducing = false;    // the host_staged_reduce family (streamed)
  HSTable* table;           // this block's (start)
  const uint64_t* remotes;  // each peer's CUDA IPC address in table; null: read mems

  // remoteOf is peer i's address over CUDA IPC (0: a network peer).
  __device__ uint64_t remoteOf(uint32_t i) const { return remotes != nullptr ? remotes[i] : mems[i].remote; }

  // isLocal says peer i is connected by CUDA IPC: it gets its segment over NVLink.
  __device__ bool isLocal(uint32_t i) const { return mems != nullptr && remoteOf(i) != 0; }

  // Rail routing: where ranks is set, a rank talks over the network only to its rail (the
  // ranks of its local index on the other hosts), and forwards over NVLink what its rail
  // sends for the other ranks of its host.
  __device__ bool rail() const { return ranks != nullptr; }
  __device__ uint32_t hostOf(uint32_t r) const { return ranks[nranks + r] / nlocal; }
  __device__ uint32_t localOf(uint32_t r) const { return ranks[nranks + r] % nlocal; }
  __device__ uint32_t rankAt(uint32_t h, uint32_t j) const { return ranks[h * nlocal + j]; }
  // linked says peer i exchanges a signal with me every launch: every peer, or under rail
  // routing the peers of my host and my rail.
  __device__ bool linked(uint32_t i) const {
    return !rail() || isLocal(i) || localOf(peerRank(i, rank)) == localOf(rank);
  }

  // nslots is how many slots a region of scratch (and local) holds: one per sender under
  // rail routing, whose forwarders may write several senders' segments to one rank.
  __device__ uint32_t nslots() const { return rail() ? nranks : slotsOf(mode, nranks); }

  // slotOff is where sender from's slot is in a region of scratch (or local).
  __device__ uint64_t slotOff(uint32_t from) const { return region + (nslots() == 1 ? 0 : from * stride); }

  // packed is where the segment of host h's rank of local index j is in sender from's
  // bundle for host h under rail routing: the segments in local order, each rounded up to
  // 16 bytes (one segment for all where every peer gets the same). j = nlocal: the
  // bundle's bytes.
  __device__ uint64_t packed(uint32_t from, uint32_t h, uint32_t j) const {
    if (sameToAll(mode)) {
      return j < nlocal ? 0 : sendSeg(mode, from, rankAt(h, 0), unit, total, root, nranks).bytes;
    }
    uint64_t off = 0;
    for (uint32_t k = 0; k < j; k++) off += (sendSeg(mode, from, rankAt(h, k), unit, total, root, nranks).bytes + 15) & ~15ull;
    return off;
  }

  // railSlot is where the bundle of my rail's rank on host h lands in a region of scratch.
  __device__ uint64_t railSlot(uint32_t h) const { return region + (uint64_t)h * nlocal * stride; }

  // railBox is where my bundle for host h is in my outbox, whose region is at box.
  __device__ uint64_t railBox(uint64_t box, uint32_t h) const {
    const uint32_t myHost = hostOf(rank);
    return box + (sameToAll(mode) ? 0 : (uint64_t)peerIndex(h, myHost) * nlocal * stride);
  }

  // hostFirst says this launch reduces inside each host before the network
  // (exchangeHostFirst): reduce-scatter and reduce under rail routing.
  __device__ bool hostFirst() const { return rail() && (mode == PS_REDUCESCATTER || mode == PS_REDUCE); }

  // partSlot is where, in a region of local, my host's rank of local index j writes its
  // segment for the rank of my local index on host h (exchangeHostFirst).
  __device__ uint64_t partSlot(uint32_t j, uint32_t h) const { return region + ((uint64_t)h * nlocal + j) * stride; }

  // toMyRail says some rank sends bytes to a rank of my local index (a reduction's
  // segment for rank to has the same size from every sender).
  __device__ bool toMyRail() const {
    for (uint32_t h = 0; h < nranks / nlocal; h++) {
      if (sendSeg(mode, rank, rankAt(h, localOf(rank)), unit, total, root, nranks).bytes > 0) return true;
    }
    return false;
  }

  __device__ const char* slotPtr(uint32_t from) const {
    if (rail() && hostOf(from) != hostOf(rank) && localOf(from) == localOf(rank)) {
      return scratch + railSlot(hostOf(from)) + packed(from, hostOf(rank), localOf(rank));
    }
    if (rail() && hostOf(from) != hostOf(rank)) return local + slotOff(from);  // forwarded
    return (isLocal(peerIndex(from, rank)) ? local : scratch) + slotOff(from);
  }

  // claim (one thread) picks the region whose eighths were written longest ago (first on
  // a tie), marks them as written by this launch, records the region in parts[hsParts]
  // for the other blocks and returns the last launch that wrote any of them. That is never
  // the launch before (it wrote at most half the eighths), so no rank waits for a signal
  // its peer sends only after the same wait.
  // It loads every eighth's entry before it compares any: one round trip to device memory
  // rather than one per eighth.
  __device__ uint32_t claim(uint32_t& best) const {
    const uint32_t per = hsParts / depth;
    uint32_t w[hsParts];
#pragma unroll
    for (uint32_t e = 0; e < hsParts; e++) w[e] = parts[e];
    uint32_t last = ~0u;
    best = 0;
#pragma unroll
    for (uint32_t r = 0; r < hsParts; r++) {
      if (r >= depth) break;
      uint32_t m = 0;
#pragma unroll
      for (uint32_t e = 0; e < hsParts; e++) {
        if (e / per == r) m = max(m, w[e]);
      }
      if (m < last) {
        last = m;
        best = r;
      }
    }
    for (uint32_t e = best * per; e < (best + 1) * per; e++) parts[e] = flag;
    parts[hsParts] = best;
    return last;
  }

  // seen is where each peer's signal count as last read is kept (device memory, after parts).
  __device__ uint64_t* seen() const { return reinterpret_cast<uint64_t*>(parts + hsParts + 2); }

  // awaitPeer (thread i of block 0) waits until peer i's signal count reaches my expected
  // count plus n. A count only grows, so one read before that is high enough answers
  // without reading the token again (host-resident for a network peer, read over PCIe: on
  // H100 a 64 B launch's credit wait took about 3 us and its gate about 4, docs/
  // performance.md); a read records what it saw.
  __device__ void awaitPeer(uint32_t i, uint64_t n) {
    const PortChannelHandle& c = chans[i];
    const uint64_t want = *reinterpret_cast<volatile uint64_t*>(c.sem.expected) + n;
    uint64_t* last = seen() + i;
    if (*last >= want) return;
    uint64_t v;
    SpinGuard g;
    while ((v = loadAcquireSys(reinterpret_cast<uint64_t*>(c.sem.inbound))) < want) {
      if (g.expired(DEVERR_SEMAPHORE_WAIT, c.peer, c.id)) break;
    }
    *last = v;
  }

  // waiter is the first thread of block 0 that waits in the gate, thread waiter() + i for
  // peer i: a warp after those whose thread i pushes peer i's trigger, so that its read of a
  // host-resident token (about 1-2 us over PCIe) goes on while they push (0 where the block
  // has too few threads for both).
  __device__ uint32_t waiter() const {
    const uint32_t w = (nranks - 1 + 31) / 32 * 32;
    return w + nranks - 1 <= blockDim.x ? w : 0;
  }

  // gate is hostGate (host_resident_device.cuh) with block 0's waits through awaitPeer:
  // the waiter for peer i waits for this launch's signal of peer i only where sends(i)
  // (peer i sends me bytes), and reads nothing where not (broadcast's root reads no token
  // at all); then block 0 opens the grid's gate and the other blocks wait for it and read
  // this launch's region (setRegion). A grid of one block only meets at its barrier: the
  // gate's fence and store cost about 0.4 us of a small launch (docs/performance.md,
  // "Where a small launch's time goes in the kernel").
  template <typename Sends>
  __device__ void gate(Sends sends) {
    const uint32_t w = waiter();
    if (blockIdx.x == 0 && threadIdx.x >= w && threadIdx.x - w < nranks - 1 && sends(threadIdx.x - w)) {
      awaitPeer(threadIdx.x - w, 1);
    }
    if (gridDim.x == 1) {
      __syncthreads();  // no other block waits for the gate: the barrier orders the block's reads
      return;
    }
    hostGate(state, flag, chans, 0, 0);
    if (blockIdx.x != 0) setRegion();  // block 0 set it in begin and recorded it before the gate opened
  }

  // setRegion places this launch's region (parts[hsParts]) in scratch and local.
  __device__ void setRegion() { region = *reinterpret_cast<volatile uint32_t*>(&parts[hsParts]) * nslots() * stride; }

  // boxSlots is how many slots a region of my outbox holds: one where every peer gets the
  // same segment of my input, or (send-receive, but under rail routing) where one peer
  // alone gets any; else one per peer.
  __device__ uint32_t boxSlots() const {
    return sameToAll(mode) || (mode == PS_SENDRECV && !rail()) ? 1 : nranks - 1;
  }

  // boxPeer is the peer whose segment outbox slot k holds (send-receive's one slot: the
  // next rank's).
  __device__ uint32_t boxPeer(uint32_t k) const {
    if (mode != PS_SENDRECV || rail()) return k;
    return peerIndex((rank + 1) % nranks, rank);
  }

  // boxOf is the outbox slot that holds my segment for peer i.
  __device__ uint32_t boxOf(uint32_t i) const { return boxSlots() == 1 ? 0 : i; }

  // begin (block 0): claims this launch's region, waits until every linked peer has read
  // what it last held (peer count last + 1; my expected count is flag - 1) and returns
  // where the region is in my outbox.
  __device__ uint64_t begin() {
    __shared__ uint32_t last, best;
    if (threadIdx.x == 0) last = claim(best);
    __syncthreads();
    region = best * nslots() * stride;
    if (last != 0 && threadIdx.x < nranks - 1 && linked(threadIdx.x)) {
      awaitPeer(threadIdx.x, (uint64_t)((int64_t)last + 2 - (int64_t)flag));
    }
    __syncthreads();
    return best * boxSlots() * stride;
  }

  // localPiece is my segment for peer i over CUDA IPC, to go straight into my slot of its
  // local over NVLink (no bytes for a network peer).
  __device__ Piece localPiece(uint32_t i) const {
    if (!isLocal(i)) return {nullptr, nullptr, 0, false};
    const Seg s = sendSeg(mode, rank, peerRank(i, rank), unit, total, root, nranks);
    return {reinterpret_cast<char*>(remoteOf(i)) + slotOff(rank), in + s.off, s.bytes, false};
  }

  // writeLocal (block 0): my segment for each peer over CUDA IPC straight into my slot of
  // its local, over NVLink.
  __device__ void writeLocal() {
    for (uint32_t i = 0; i < nranks - 1; i++) {
      const Piece p = localPiece(i);
      copy(p.dst, p.src, p.bytes, threadIdx.x, blockDim.x);
    }
  }

  // start counts the launch, sizes its slots and fills the block's HSTable (every thread
  // of the block).
  __device__ void start() {
    __shared__ HSTable shared;
    table = &shared;
    flag = launchFlag(state);
    stride = 2 * slotBytes / depth;
    const uint32_t t = threadIdx.x;
    const bool remotesFit = mems != nullptr && nranks - 1 <= hsTableRanks;
    const bool ranksFit = ranks != nullptr && nranks <= hsTableRanks;
    if (remotesFit && t < nranks - 1) shared.remote[t] = mems[t].remote;
    if (ranksFit && t < 2 * nranks) shared.ranks[t] = ranks[t];
    __syncthreads();
    remotes = remotesFit ? shared.remote : nullptr;
    if (ranksFit) ranks = shared.ranks;
  }

  // recvBytes is what peer i sends me this launch.
  __device__ uint64_t recvBytes(uint32_t i) const {
    return sendSeg(mode, peerRank(i, rank), rank, unit, total, root, nranks).bytes;
  }

  // sendRounds is how many rounds block 0 puts my outbox in (exchange): one per chunk of
  // the longest segment in it, at least one.
  __device__ uint64_t sendRounds() const {
    uint64_t longest = 0;
    for (uint32_t k = 0; k < boxSlots(); k++) {
      const uint32_t i = boxPeer(k);
      if (sameToAll(mode) || !isLocal(i)) longest = max(longest, sendSeg(mode, rank, peerRank(i, rank), unit, total, root, nranks).bytes);
    }
    return max(chunksOf(longest), (uint64_t)1);
  }

  // recvRounds is how many rounds a streamed launch receives in: the most chunks a
  // network peer sends me.
  __device__ uint64_t recvRounds() const {
    uint64_t n = 0;
    for (uint32_t i = 0; i < nranks - 1; i++) {
      if (!isLocal(i)) n = max(n, chunksOf(recvBytes(i)));
    }
    return n;
  }

  // streamed says this launch reads what the peers send it round by round (copyStreamed,
  // hostStagedReduce) rather than after one gate: where some network peer sends me a
  // segment of several chunks, each of which it signals on its progress channel as it puts
  // it (the last with the launch's signal), the grid has a block besides block 0, and the
  // rounds can be told apart: not in place for all-to-allv (copyAll), not for a reduction
  // that a CUDA IPC peer sends bytes into (its whole segment comes with the last round).
  __device__ bool streamed() const {
    if (progress == nullptr || rail() || gridDim.x < 2 || (in == out && mode == PS_ALLTOALLV)) return false;
    if (recvRounds() < 2) return false;
    for (uint32_t i = 0; reducing && i < nranks - 1; i++) {
      if (isLocal(i) && recvBytes(i) > 0) return false;
    }
    return true;
  }

  // roundWord is how many rounds of a streamed launch have landed, (flag << 32) + rounds,
  // as block 1 tells the grid; copiedWord is how many rounds block 0 has copied, alike
  // (both device memory, after seen).
  __device__ uint64_t* roundWord() const { return seen() + nranks - 1; }
  __device__ uint64_t* copiedWord() const { return seen() + nranks; }

  // spinUntil (one thread) waits until *w reaches want, then fences: what was written
  // before w was set is visible to this block after its next barrier.
  __device__ void spinUntil(uint64_t* w, uint64_t want) const {
    SpinGuard g;
    while (*reinterpret_cast<volatile uint64_t*>(w) < want) {
      if (g.expired(DEVERR_SEMAPHORE_WAIT, chans[0].peer, chans[0].id)) break;
    }
    __threadfence();
  }

  // publish (one thread) sets *w to v once this block's writes are visible to the grid.
  __device__ static void publish(uint64_t* w, uint64_t v) {
    __threadfence();
    atomicExch(reinterpret_cast<unsigned long long*>(w), static_cast<unsigned long long>(v));
  }

  // awaitChunk (block 1, thread i) waits until peer i's data of round r of rounds has
  // landed: chunk r of a network peer's segment (its progress count, or the launch's
  // signal with its last chunk), a CUDA IPC peer's whole segment in the last round.
  __device__ void awaitChunk(uint32_t i, uint64_t r, uint64_t rounds) {
    const uint64_t bytes = recvBytes(i);
    if (bytes == 0) return;
    if (isLocal(i)) {
      if (r == rounds - 1) awaitPeer(i, 1);
      return;
    }
    const uint64_t chunks = chunksOf(bytes);
    if (r + 1 < chunks) {
      awaitCount(progress[i], r + 1);
    } else if (r + 1 == chunks) {
      awaitPeer(i, 1);
    }
  }

  // awaitRound (every block but 0) waits until round r of rounds has landed: block 1's
  // thread i waits for peer i, then it tells the other blocks (roundWord). It also waits
  // until block 0 has copied round r of sends rounds (all of them, if fewer). That says
  // block 0 has claimed this launch's region (the first round then places it, setRegion,
  // as the gate does), and in place (all-to-all, send-receive) that no block overwrites
  // what block 0 has yet to copy: a part of my buffer is sent to and received from
  // network peers in the same round, and where block 0 writes a CUDA IPC peer's segment
  // in its last round, either nothing comes from the network into that part or block 0
  // has a single round.
  __device__ void awaitRound(uint64_t r, uint64_t rounds, uint64_t sends) {
    const uint64_t base = (uint64_t)flag << 32;
    if (blockIdx.x == 1) {
      if (threadIdx.x < nranks - 1) awaitChunk(threadIdx.x, r, rounds);
      if (threadIdx.x == 0) spinUntil(copiedWord(), base + min(r + 1, sends));
      __syncthreads();
      if (threadIdx.x == 0) publish(roundWord(), base + r + 1);
    } else if (threadIdx.x == 0) {
      spinUntil(roundWord(), base + r + 1);
    }
    __syncthreads();
    if (r == 0) setRegion();
  }

  // copyStreamed is copyAll for a streamed launch: blocks 1 on copy each round once it has
  // landed, chunk r of each network peer's segment in round r, my own segment in the first,
  // a CUDA IPC peer's in the last. Block 0, which put mine, copies none of it.
  __device__ void copyStreamed() {
    if (blockIdx.x == 0) return;
    const uint64_t rounds = recvRounds(), sends = sendRounds();
    const uint64_t t = (uint64_t)(blockIdx.x - 1) * blockDim.x + threadIdx.x;
    const uint64_t threads = (uint64_t)(gridDim.x - 1) * blockDim.x;
    for (uint64_t r = 0; r < rounds; r++) {
      awaitRound(r, rounds, sends);
      for (uint32_t q = 0; q < nranks; q++) {
        const Seg s = sendSeg(mode, q, rank, unit, total, root, nranks);
        char* dst = out + recvOff(mode, q, rank, unit, total, nranks);
        if (q == rank) {
          if (r == 0 && in + s.off != dst) copy(dst, in + s.off, s.bytes, t, threads);
          continue;
        }
        uint64_t lo = 0, hi = s.bytes;
        if (isLocal(peerIndex(q, rank))) {
          if (r != rounds - 1) continue;
        } else {
          lo = min(r * hsChunk, s.bytes);
          hi = min(lo + hsChunk, s.bytes);
        }
        copyFresh(dst + lo, slotPtr(q) + lo, hi - lo, t, threads);
      }
    }
  }

  // outPiece is piece k of what block 0 writes out of my input in region box: my outbox's
  // nbox slots (0 .. nbox - 1), then each peer's over CUDA IPC.
  __device__ Piece outPiece(uint64_t box, uint32_t nbox, uint32_t k) const {
    if (k >= nbox) return localPiece(k - nbox);
    const uint32_t i = boxPeer(k);
    if (!sameToAll(mode) && isLocal(i)) return {nullptr, nullptr, 0, false};
    const Seg s = sendSeg(mode, rank, peerRank(i, rank), unit, total, root, nranks);
    return {outbox + box + k * stride, in + s.off, s.bytes, false};
  }

  // sendWhole (block 0) writes my segments of a launch whose segments are each a chunk at
  // most: into my outbox and the CUDA IPC peers' scratch, then one put with the launch's
  // signal to each network peer (a signal alone for an empty segment).
  __device__ void sendWhole(uint64_t box) {
    const uint32_t npeers = nranks - 1, nbox = boxSlots();
    auto piece = [&](uint32_t k) { return outPiece(box, nbox, k); };
    if (!copyPieces(nbox + npeers, piece, threadIdx.x, blockDim.x, *table)) {
      for (uint32_t k = 0; k < nbox + npeers; k++) {
        const Piece p = piece(k);
        copy(p.dst, p.src, p.bytes, threadIdx.x, blockDim.x);
      }
    }
    __syncthreads();
    if (stream && threadIdx.x == 0) publish(copiedWord(), ((uint64_t)flag << 32) + 1);
    if (threadIdx.x < npeers && isLocal(threadIdx.x)) {
      MemoryChannel{mems[threadIdx.x]}.signal();  // release: the block's writes above first
    } else if (threadIdx.x < npeers) {
      PortChannel c{chans[threadIdx.x]};
      const Seg s = sendSeg(mode, rank, peerRank(threadIdx.x, rank), unit, total, root, nranks);
      if (s.bytes == 0) {
        c.signal();
      } else {
        c.putWithSignal(slotOff(rank), box + boxOf(threadIdx.x) * stride, s.bytes);
      }
    }
  }

  // sendChunked (block 0) is sendWhole for a launch with a segment over a chunk, in
  // `chunks` rounds (sendRounds): each outbox slot chunk by chunk, each chunk put once
  // copied (all but a segment's last with a signal on the progress channel, the last with
  // the launch's signal), the CUDA IPC peers' segments with the last round.
  __device__ void sendChunked(uint64_t box, uint64_t chunks) {
    const uint32_t npeers = nranks - 1, nbox = boxSlots();
    for (uint64_t r = 0; r < chunks; r++) {
      const uint64_t at = r * hsChunk;
      for (uint32_t k = 0; k < nbox; k++) {
        const Piece p = outPiece(box, nbox, k);
        if (at < p.bytes) copy(p.dst + at, p.src + at, min(hsChunk, p.bytes - at), threadIdx.x, blockDim.x);
      }
      for (uint32_t k = nbox; k < nbox + npeers && r == chunks - 1; k++) {
        const Piece p = outPiece(box, nbox, k);
        copy(p.dst, p.src, p.bytes, threadIdx.x, blockDim.x);
      }
      __syncthreads();
      if (stream && threadIdx.x == 0) publish(copiedWord(), ((uint64_t)flag << 32) + r + 1);
      if (threadIdx.x < npeers && isLocal(threadIdx.x)) {
        if (r == chunks - 1) MemoryChannel{mems[threadIdx.x]}.signal();  // release: the block's writes above first
      } else if (threadIdx.x < npeers) {
        PortChannel c{chans[threadIdx.x]};
        const Seg s = sendSeg(mode, rank, peerRank(threadIdx.x, rank), unit, total, root, nranks);
        const uint64_t src = box + boxOf(threadIdx.x) * stride + at;
        if (s.bytes == 0 && r == 0) {
          c.signal();
        } else if (at < s.bytes && s.bytes - at <= hsChunk) {
          c.putWithSignal(slotOff(rank) + at, src, s.bytes - at);  // the last chunk: the signal follows every byte
        } else if (at < s.bytes && progress != nullptr) {
          PortChannel{progress[threadIdx.x]}.putWithSignal(slotOff(rank) + at, src, hsChunk);  // counted: streamed
        } else if (at < s.bytes) {
          c.put(slotOff(rank) + at, src, hsChunk);
        }
      }
    }
  }

  // exchange: once the peers have read what this launch's region last held, my segments
  // into my outbox and put into the network peers' scratch, written straight into the
  // scratch of the peers over CUDA IPC; then, unless the launch is streamed, the data of
  // the peers that send me any here (on return, for the whole grid, to be read with
  // loadFresh).
  __device__ void exchange() {
    start();
    if (rail()) {
      exchangeRail();
      return;
    }
    stream = streamed();
    if (blockIdx.x == 0) {
      const uint64_t box = begin();
      const uint64_t chunks = sendRounds();
      if (chunks > 1) {
        sendChunked(box, chunks);
      } else {
        sendWhole(box);
      }
    }
    // this launch's signal of each peer that sends me bytes
    if (!stream) gate([&](uint32_t i) { return recvBytes(i) > 0; });
  }

  // exchangeRail is exchange under rail routing. Block 0, once the linked peers have read
  // what this launch's region last held, writes my segments for my host's ranks straight
  // into their local over NVLink, and for each other host one bundle (packed) into my
  // outbox, which it puts, with a signal, into my rail peer's scratch there (a signal
  // alone for an empty bundle). It waits for the bundles of my rail, copies the segments
  // they carry for my host's other ranks into those ranks' local (in the sender's slot),
  // and only then signals each rank of my host: that one signal per launch says both my
  // segment and what I forwarded are there. The gate then waits for the linked peers that
  // send me bytes, directly or forwarded. No wait is circular: a rank's puts of a launch
  // wait only for credits of earlier launches, its NVLink signals for those puts.
  __device__ void exchangeRail() {
    const uint32_t npeers = nranks - 1, myHost = hostOf(rank), me = localOf(rank), nhosts = nranks / nlocal;
    if (blockIdx.x == 0) {
      const uint64_t box = begin();
      auto bundle = [&](uint32_t h) { return railBox(box, h); };
      for (uint32_t h = 0; h < nhosts; h++) {
        if (h == myHost) continue;
        for (uint32_t j = 0; j < (sameToAll(mode) ? 1 : nlocal); j++) {
          const Seg s = sendSeg(mode, rank, rankAt(h, j), unit, total, root, nranks);
          copy(outbox + bundle(h) + packed(rank, h, j), in + s.off, s.bytes, threadIdx.x, blockDim.x);
        }
        if (sameToAll(mode)) break;
      }
      writeLocal();
      __syncthreads();
      const uint32_t i = threadIdx.x;
      const bool railPeer = i < npeers && !isLocal(i) && linked(i);
      if (railPeer) {
        PortChannel c{chans[i]};
        const uint32_t h = hostOf(peerRank(i, rank));
        const uint64_t bytes = packed(rank, h, nlocal);
        if (bytes == 0) {
          c.signal();
        } else {
          c.putWithSignal(railSlot(myHost), bundle(h), bytes);
        }
      }
      // my rail's bundles of this launch, then what they carry for my host's other ranks
      if (railPeer && packed(peerRank(i, rank), myHost, nlocal) > 0) awaitPeer(i, 1);
      __syncthreads();
      for (uint32_t h = 0; h < nhosts; h++) {
        if (h == myHost) continue;
        const uint32_t from = rankAt(h, me);
        for (uint32_t j = 0; j < nlocal; j++) {
          const uint32_t to = rankAt(myHost, j);
          const uint64_t bytes = sendSeg(mode, from, to, unit, total, root, nranks).bytes;
          if (to == rank || bytes == 0) continue;
          char* dst = reinterpret_cast<char*>(remoteOf(peerIndex(to, rank))) + slotOff(from);
          copyFresh(dst, scratch + railSlot(h) + packed(from, myHost, j), bytes, threadIdx.x, blockDim.x);
        }
      }
      __syncthreads();
      if (i < npeers && isLocal(i)) MemoryChannel{mems[i]}.signal();  // release: the block's writes above first
    }
    // this launch's signal of each linked peer that sends me bytes: a rank of my host its
    // own or its rail's, a rail peer its bundle for my host
    gate([&](uint32_t i) {
      if (!linked(i)) return false;
      const uint32_t p = peerRank(i, rank);
      if (!isLocal(i)) return packed(p, myHost, nlocal) > 0;
      bool any = sendSeg(mode, p, rank, unit, total, root, nranks).bytes > 0;
      for (uint32_t h = 0; h < nhosts; h++) {
        if (h != myHost && sendSeg(mode, rankAt(h, localOf(p)), rank, unit, total, root, nranks).bytes > 0) any = true;
      }
      return any;
    });
  }

  // finish: the last block advances each linked peer's expected count by the launch's
  // signal, and a network peer's progress count by the chunks it signalled there (all but
  // the last of a segment of several, whether or not this launch was streamed).
  __device__ void finish() {
    // A grid of one block counts no blocks done: finishLaunch's barrier ends the launch.
    const bool last = gridDim.x == 1 || lastBlock(state);
    const uint32_t i = threadIdx.x;
    if (last && i < nranks - 1 && linked(i)) {
      *reinterpret_cast<volatile uint64_t*>(chans[i].sem.expected) += 1;
      const uint64_t chunks = progress != nullptr && !isLocal(i) ? chunksOf(recvBytes(i)) : 0;
      if (chunks > 1) *reinterpret_cast<volatile uint64_t*>(progress[i].sem.expected) += chunks - 1;
    }
    finishLaunch(state, flag);
  }

  // copyAll: every segment that reaches my output, by the whole grid; the peers' from my
  // host-resident scratch. Small aligned segments go through copyPieces, except in place
  // for all-to-allv, where my own segment moves within my buffer and other segments may
  // land where it was read from.
  __device__ void copyAll() {
    auto piece = [&](uint32_t q) -> Piece {
      const Seg s = sendSeg(mode, q, rank, unit, total, root, nranks);
      char* dst = out + recvOff(mode, q, rank, unit, total, nranks);
      return {dst, q == rank ? in + s.off : slotPtr(q), s.bytes, q != rank};
    };
    if (!(in == out && mode == PS_ALLTOALLV) && copyPieces(nranks, piece, globalThread(), globalThreads(), *table)) return;
    for (uint32_t q = 0; q < nranks; q++) {
      const Piece p = piece(q);
      if (p.fresh) {
        copyFresh(p.dst, p.src, p.bytes, globalThread(), globalThreads());
      } else if (p.src != p.dst) {
        copy(p.dst, p.src, p.bytes, globalThread(), globalThreads());
      }
    }
  }
};

// exchangeHostFirst is exchangeRail for reduce-scatter and reduce: the segments a host's
// ranks send a rank on another host are reduced on their host first, so one partial per
// host crosses the network instead of one segment per rank. Block 0, once the linked
// peers have read what this launch's region last held, writes my segment for each rank
// of a local peer's rail (the ranks of its local index on every host) over NVLink into
// my slot for that rank's host in the peer's local (partSlot), and signals it. Once the
// local peers that write me have signalled, it reduces, for each other host, my host's
// segments for my rail peer there into my bundle for that host in my outbox, and puts
// it, with a signal, into my rail peer's scratch (a signal alone where it is empty). The
// gate then waits for the partials of my rail; reduceHostFirst adds up my host's
// segments for me and those partials. Every linked pair still exchanges one signal a
// launch, so exchange's counts, regions and credits hold; no wait is circular: a rank's
// NVLink writes wait only for credits of earlier launches, its puts for those writes.
template <typename T, int Op>
__device__ void exchangeHostFirst(HostStaged& p) {
  const uint32_t npeers = p.nranks - 1, myHost = p.hostOf(p.rank), me = p.localOf(p.rank);
  const uint32_t nhosts = p.nranks / p.nlocal;
  p.start();
  if (blockIdx.x == 0) {
    const uint64_t box = p.begin();
    for (uint32_t i = 0; i < npeers; i++) {
      if (!p.isLocal(i)) continue;
      const uint32_t k = p.localOf(peerRank(i, p.rank));
      for (uint32_t h = 0; h < nhosts; h++) {
        const Seg s = sendSeg(p.mode, p.rank, p.rankAt(h, k), p.unit, p.total, p.root, p.nranks);
        char* dst = reinterpret_cast<char*>(p.remoteOf(i)) + p.partSlot(me, h);
        copy(dst, p.in + s.off, s.bytes, threadIdx.x, blockDim.x);
      }
    }
    __syncthreads();
    const uint32_t i = threadIdx.x;
    if (i < npeers && p.isLocal(i)) {
      MemoryChannel{p.mems[i]}.signal();  // release: the block's writes above first
      if (p.toMyRail()) p.awaitPeer(i, 1);
    }
    __syncthreads();
    for (uint32_t h = 0; h < nhosts; h++) {
      if (h == myHost) continue;
      const Seg s = sendSeg(p.mode, p.rank, p.rankAt(h, me), p.unit, p.total, p.root, p.nranks);
      if (s.bytes == 0) continue;
      auto from = [&](uint32_t j) -> const char* { return j == me ? p.in + s.off : p.local + p.partSlot(j, h); };
      reduceHost<T, Op, false>(p.outbox + p.railBox(box, h), from, p.nlocal, me, 0, s.bytes, p.nranks);
    }
    __syncthreads();
    if (i < npeers && !p.isLocal(i) && p.linked(i)) {
      PortChannel c{p.chans[i]};
      const uint32_t h = p.hostOf(peerRank(i, p.rank));
      const uint64_t bytes = sendSeg(p.mode, p.rank, p.rankAt(h, me), p.unit, p.total, p.root, p.nranks).bytes;
      if (bytes == 0) {
        c.signal();
      } else {
        c.putWithSignal(p.railSlot(myHost), p.railBox(box, h), bytes);
      }
    }
  }
  // the partial of each rail peer (the local peers were waited for above)
  const bool forMe = sendSeg(p.mode, p.rank, p.rank, p.unit, p.total, p.root, p.nranks).bytes > 0;
  p.gate([&](uint32_t i) { return p.linked(i) && (p.isLocal(i) ? p.toMyRail() : forMe); });
}

// reduceHostFirst is my result after exchangeHostFirst, by the whole grid: my host's
// segments for me (mine from my input, the others' from local) and each other host's
// partial from my scratch, in that order.
template <typename T, int Op>
__device__ void reduceHostFirst(HostStaged& p, uint64_t mine, Range share) {
  const uint32_t myHost = p.hostOf(p.rank), me = p.localOf(p.rank), nhosts = p.nranks / p.nlocal;
  auto from = [&](uint32_t r) -> const char* {
    if (r < p.nlocal) return r == me ? p.in + mine : p.local + p.partSlot(r, myHost);
    const uint32_t h = r - p.nlocal;
    return p.scratch + p.railSlot(peerRank(h, myHost));
  };
  reduceHost<T, Op>(p.out, from, p.nlocal + nhosts - 1, me, share.begin, share.size(), p.nranks);
}

}  // namespace

#define HS_PARAMS                                                                                         \
  PortChannelHandle *chans, MemoryChannelHandle *memChans, char *outbox, const char *scratch, const char *local, \
      uint64_t slotBytes, const char *in, char *out, uint64_t unit, uint64_t total, uint32_t mode, uint32_t root, \
      uint32_t rank, uint32_t nranks, uint32_t depth, LaunchState *state, uint32_t *parts, const uint32_t *ranks, \
      uint32_t nlocal, PortChannelHandle *progress
#define HS_INIT                                                                                                \
  HostStaged p{chans, memChans, outbox, scratch, local, slotBytes, in, out, unit, total, mode, root, rank, nranks, \
               depth, state, parts, ranks, nlocal, progress}

// host_staged: the collectives that copy, through host-resident buffers.
extern "C" __global__ void __launch_bounds__(1024) host_staged(HS_PARAMS) {
  HS_INIT;
  p.exchange();
  if (p.stream) {
    p.copyStreamed();
  } else {
    p.copyAll();
  }
  p.finish();
}

// reduceStreamed (blocks 1 on) is a streamed launch's reduction, round by round: every
// sender's segment for me is the unit, in chunks.
template <typename T, int Op>
__device__ void reduceStreamed(HostStaged& p) {
  const uint64_t rounds = p.recvRounds(), sends = p.sendRounds();
  const uint64_t mine = p.mode == PS_REDUCESCATTER ? p.rank * p.unit : 0;
  auto from = [&](uint32_t r) { return r == p.rank ? p.in + mine : p.slotPtr(r); };
  for (uint64_t r = 0; r < rounds; r++) {
    p.awaitRound(r, rounds, sends);
    const uint64_t lo = min(r * hsChunk, p.unit), hi = min(lo + hsChunk, p.unit);
    const Range share = split(hi - lo, gridDim.x - 1, blockIdx.x - 1, 16);
    reduceHost<T, Op>(p.out, from, p.nranks, p.rank, lo + share.begin, share.size(), p.nranks);
  }
}

// host_staged_reduce_<type>_<op>: reduce-scatter, reduce and all-reduce through
// host-resident buffers, in rank order (all-reduce: every rank reduces every rank's whole
// input, so every rank's result is the same to the bit).
template <typename T, int Op>
__device__ void hostStagedReduce(HostStaged& p) {
  const bool hostFirst = p.hostFirst();
  p.reducing = true;
  if (hostFirst) {
    exchangeHostFirst<T, Op>(p);
  } else {
    p.exchange();
  }
  if (p.stream) {
    if (blockIdx.x != 0) reduceStreamed<T, Op>(p);
  } else if (p.mode == PS_REDUCESCATTER || p.mode == PS_ALLREDUCE || p.rank == p.root) {
    const uint64_t mine = p.mode == PS_REDUCESCATTER ? p.rank * p.unit : 0;
    const Range share = split(p.unit, gridDim.x, blockIdx.x, 16);
    if (hostFirst) {
      reduceHostFirst<T, Op>(p, mine, share);
    } else {
      auto from = [&](uint32_t r) { return r == p.rank ? p.in + mine : p.slotPtr(r); };
      reduceHost<T, Op>(p.out, from, p.nranks, p.rank, share.begin, share.size(), p.nranks);
    }
  }
  p.finish();
}

#define HS_REDUCE_KERNEL(name, T, opname, OP)                                                          \
  extern "C" __global__ void __launch_bounds__(1024) host_staged_reduce_##name##_##opname(HS_PARAMS) { \
    HS_INIT;                                                                                           \
    hostStagedReduce<T, OP>(p);                                                                        \
  }

#define HS_REDUCE_ALL_OPS(name, T) MB_FOR_EACH_OP(HS_REDUCE_KERNEL, name, T)
MB_FOR_EACH_TYPE(HS_REDUCE_ALL_OPS)
