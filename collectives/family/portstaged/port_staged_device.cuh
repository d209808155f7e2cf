// port_staged_device.cuh: the schedule that port_staged.cu and host_staged.cu share
// (host side: port_staged.go and host_staged.go).
//
// One schedule serves every collective (mode): what rank `from` sends rank `to` is one
// segment of its input (sendSeg), which lands in slot slotOf(from) of a region of the
// receiver's scratch; once every peer's segment is there, every block copies (or, for
// reduce-scatter and reduce, reduces) its share of the slots into my output (recvOff says
// where). A pair with nothing to send still exchanges the signal, so every pair counts one
// data signal and one credit per launch, whatever the collective or root.
#ifndef MSCCLPP_BENCH_PORT_STAGED_DEVICE_CUH_
#define MSCCLPP_BENCH_PORT_STAGED_DEVICE_CUH_

#include "mscclpp/host_resident_device.cuh"

namespace {

// Modes: port_staged.go's PortStagedMode values.
enum : uint32_t {
  PS_REDUCESCATTER = 0,
  PS_REDUCE = 1,
  PS_ALLTOALL = 2,
  PS_ALLTOALLV = 3,
  PS_SENDRECV = 4,
  PS_BROADCAST = 5,
  PS_GATHER = 6,
  PS_SCATTER = 7,
  PS_ALLGATHER = 8,  // hypercube's result, in one step
  PS_ALLREDUCE = 9,  // host_staged only: my whole input to every peer, every rank reduces them all
};

struct Seg {
  uint64_t off, bytes;
};

// alltoallvBytes is the bytes rank from sends rank to, of total bytes in all (alltoallv.cu's
// peerBytes, collectives.AlltoallvPeerBytes).
__device__ __forceinline__ uint64_t alltoallvBytes(uint32_t from, uint32_t to, uint32_t nranks, uint64_t total) {
  const uint32_t distance = (to + nranks - from) % nranks;
  const uint64_t sum = (uint64_t)nranks * (nranks - 1) / 2;
  const double bytes = __ddiv_rn(__dmul_rn((double)distance, (double)total), (double)sum);
  return (uint64_t)bytes & ~(uint64_t)15;
}

// sendSeg is the segment of rank from's input that goes to rank to (from == to: what stays
// on the rank, copied into its own output). unit: the collective's per-rank bytes.
__device__ __noinline__ Seg sendSeg(uint32_t mode, uint32_t from, uint32_t to, uint64_t unit, uint64_t total, uint32_t root,
                       uint32_t nranks) {
  switch (mode) {
    case PS_REDUCESCATTER:
    case PS_ALLTOALL:
      return {to * unit, unit};
    case PS_ALLTOALLV: {
      uint64_t off = 0;
      for (uint32_t k = 0; k < to; k++) off += alltoallvBytes(from, k, nranks, total);
      return {off, alltoallvBytes(from, to, nranks, total)};
    }
    case PS_SENDRECV:
      return {0, to == (from + 1) % nranks && to != from ? unit : 0};
    case PS_BROADCAST:
      return {0, from == root ? unit : 0};
    case PS_REDUCE:
    case PS_GATHER:
      return {0, to == root ? unit : 0};
    case PS_SCATTER:
      return {to * unit, from == root ? unit : 0};
    case PS_ALLGATHER:
    case PS_ALLREDUCE:
      return {0, unit};
  }
  return {0, 0};
}

// recvOff is where in rank to's output the segment from rank from goes.
__device__ __noinline__ uint64_t recvOff(uint32_t mode, uint32_t from, uint32_t to, uint64_t unit, uint64_t total, uint32_t nranks) {
  switch (mode) {
    case PS_ALLTOALL:
    case PS_GATHER:
    case PS_ALLGATHER:
      return from * unit;
    case PS_ALLTOALLV: {
      uint64_t off = 0;
      for (uint32_t k = 0; k < from; k++) off += alltoallvBytes(k, to, nranks, total);
      return off;
    }
  }
  return 0;
}

// slotsOf is how many slots a launch's region holds: one per sender, or one where a
// single rank sends to me (sendrecv, broadcast, scatter).
__device__ __forceinline__ uint32_t slotsOf(uint32_t mode, uint32_t nranks) {
  return mode == PS_SENDRECV || mode == PS_BROADCAST || mode == PS_SCATTER ? 1 : nranks;
}

}  // namespace

#endif  // MSCCLPP_BENCH_PORT_STAGED_DEVICE_CUH_
