// sendrecv.cu: send to the next rank, receive from the previous one, over memory channels
// (host side: sendrecv_*.go).
//
// Rank r sends its `bytes` to rank r+1 and receives rank r-1's (modulo nranks). Block b of
// every rank owns share b of the buffer and its own semaphores with every peer (channels
// [block][peer], to the peers' output buffers), of which it uses the two neighbours'.
//
// Out of place, block b tells the previous rank's block b that it may write here, waits for
// the next rank's permission (its launch has started, so stream order has finished its
// earlier use of its output), puts its share into the next rank's output, then signals the
// next rank with release semantics and waits for the previous rank's signal: once every
// block has passed that wait, the previous rank's data has landed here.
//
// In place, input and output are one buffer at the same offset on every rank: what I
// receive overwrites what I send. Two ranks swap their buffers (see below). Otherwise
// block b moves its share in pieces that fit in its
// registers: it reads the previous rank's piece, tells the previous rank it has read it,
// waits until the next rank has read my piece, and only then stores the piece it holds.
// Every rank cuts the same shares into the same pieces, so the signals pair up.
#include "mscclpp/collective_device.cuh"

using namespace mb;

namespace {

constexpr int kVecs = 4;  // 16-byte vectors each thread holds of a piece

// Piece is one thread's part of a piece in flight: in 16-byte vectors when both buffers are
// 16-byte aligned and the piece is whole vectors, else in bytes (slow but correct).
struct Piece {
  int4 v[kVecs];
  bool vec;

  __device__ __forceinline__ void load(const char* s, uint64_t len) {
    if (vec) {
      for (int u = 0; u < kVecs; u++) {
        const uint64_t i = threadIdx.x + (uint64_t)u * blockDim.x;
        if (i < len / 16) v[u] = reinterpret_cast<const int4*>(s)[i];
      }
    } else {
      uint8_t* b = reinterpret_cast<uint8_t*>(v);
      for (int k = 0; k < kVecs * 16; k++) {
        const uint64_t i = threadIdx.x + (uint64_t)k * blockDim.x;
        if (i < len) b[k] = s[i];
      }
    }
  }

  __device__ __forceinline__ void store(char* d, uint64_t len) const {
    if (vec) {
      for (int u = 0; u < kVecs; u++) {
        const uint64_t i = threadIdx.x + (uint64_t)u * blockDim.x;
        if (i < len / 16) reinterpret_cast<int4*>(d)[i] = v[u];
      }
    } else {
      const uint8_t* b = reinterpret_cast<const uint8_t*>(v);
      for (int k = 0; k < kVecs * 16; k++) {
        const uint64_t i = threadIdx.x + (uint64_t)k * blockDim.x;
        if (i < len) d[i] = b[k];
      }
    }
  }
};

}  // namespace

// sendrecv_put: off is the buffers' offset (the same on every rank; in place in == out).
extern "C" __global__ void __launch_bounds__(1024, 1)
    sendrecv_put(MemoryChannelHandle* chans, const char* in, char* out, uint64_t off, uint64_t bytes, uint32_t rank,
                 uint32_t nranks, uint32_t inPlace, LaunchState* state) {
  const uint32_t npeers = nranks - 1;
  const uint32_t flag = launchFlag(state);
  MemoryChannelHandle* mine = chans + (uint64_t)blockIdx.x * npeers;
  MemoryChannel next{mine[peerIndex((rank + 1) % nranks, rank)]};
  MemoryChannel prev{mine[peerIndex((rank + nranks - 1) % nranks, rank)]};
  Range r = split(bytes, gridDim.x, blockIdx.x, 16);
  if (!inPlace) {
    if (threadIdx.x == 0) {
      prev.relaxedSignal();
      next.relaxedWait();
    }
    __syncthreads();
    copy(next.remote() + off + r.begin, in + r.begin, r.size(), threadIdx.x, blockDim.x);
    __syncthreads();
    if (threadIdx.x == 0) {
      next.signal();
      prev.wait();
    }
  } else if (nranks == 2) {
    // Two ranks: the next rank is the previous one, so the pair swaps buffers, the lower
    // rank the first half and the higher the second (as alltoall_blockput in place): every
    // byte is read and written once, with no step per piece. The peer's launch has started
    // (acquire: its input is read) before the swap, and has finished with my buffer after.
    if (threadIdx.x == 0) {
      next.signal();
      prev.wait();
    }
    __syncthreads();
    const uint64_t half = bytes / 32 * 16;
    const uint64_t lo = rank == 0 ? 0 : half, hi = rank == 0 ? half : bytes;
    Range h = split(hi - lo, gridDim.x, blockIdx.x, 16);
    swapBytes(out + lo + h.begin, next.remote() + off + lo + h.begin, h.size(), threadIdx.x, blockDim.x);
    __syncthreads();
    if (threadIdx.x == 0) {
      next.signal();
      prev.wait();
    }
  } else {
    if (threadIdx.x == 0) {  // my input is ready for the next rank; wait for the previous one's
      next.signal();
      prev.wait();
    }
    __syncthreads();
    const uint64_t piece = (uint64_t)blockDim.x * kVecs * 16;
    const char* src = prev.remote() + off;
    for (uint64_t p = r.begin; p < r.end; p += piece) {
      const uint64_t len = min(piece, r.end - p);
      Piece x;
      x.vec = len % 16 == 0 && ((reinterpret_cast<uintptr_t>(src + p) | reinterpret_cast<uintptr_t>(out + p)) & 15) == 0;
      x.load(src + p, len);
      __syncthreads();
      if (threadIdx.x == 0) {
        prev.signal();  // I have read the previous rank's piece
        next.wait();    // the next rank has read mine
      }
      __syncthreads();
      x.store(out + p, len);
    }
  }
  finishLaunch(state, flag);
}
