/*
 * handles.h: the plain structs that the host hands to kernels.
 *
 * Every struct here has a twin in Go (channels/handles.go; DeviceConfig's is in
 * internal/device, which internal/gpu can import). Both sides must agree on
 * size and field offsets; kernels/layout exposes this file's layout to a Go test that
 * compares the two, so they cannot drift. Keep this file plain C (gcc compiles it for
 * that test): fixed-width types, pointers stored as uint64_t, no C++.
 */
#ifndef MSCCLPP_BENCH_HANDLES_H_
#define MSCCLPP_BENCH_HANDLES_H_

#include <stdint.h>

#ifdef __CUDACC__
#define MB_HD __host__ __device__ __forceinline__
#else
#define MB_HD static inline
#endif

/* Device-to-device semaphore: the peer adds to our inbound token over NVLink. */
typedef struct {
  uint64_t inbound;        /* uint64_t* in local memory, written by the peer */
  uint64_t remoteInbound;  /* uint64_t* in the peer's memory (IPC-mapped), written by us */
  uint64_t expected;       /* uint64_t* in local memory: how many signals we have consumed */
} DeviceSemaphoreHandle;

/* Host-to-device semaphore: the peer's proxy writes our inbound token. */
typedef struct {
  uint64_t inbound;   /* uint64_t* in local memory */
  uint64_t expected;  /* uint64_t* in local memory */
} HostSemaphoreHandle;

/* Memory channel: GPU threads move data to/from one peer's registered memory directly. */
typedef struct {
  DeviceSemaphoreHandle sem;
  uint64_t remote;  /* base of the peer's registered buffer, mapped into this process */
  uint64_t local;   /* base of the matching local buffer */
  uint32_t peer;    /* peer rank, for error reports */
  uint32_t index;   /* channel index, for error reports */
} MemoryChannelHandle;

/* FIFO of proxy triggers: slots in mapped pinned host memory, head in device memory. */
typedef struct {
  uint64_t triggers;   /* ProxyTrigger* (mapped host memory, device address) */
  uint64_t head;       /* uint64_t* device memory: next slot to claim */
  uint64_t tail;       /* uint64_t* mapped host memory: slots consumed by the proxy */
  uint64_t tailCache;  /* uint64_t* device memory: last tail a GPU thread saw */
  uint32_t size;       /* number of slots, a power of two */
  uint32_t reserved;
} FifoHandle;

/* Port channel: GPU threads push triggers; the host proxy copies with the copy engine. */
typedef struct {
  HostSemaphoreHandle sem;
  FifoHandle fifo;
  uint32_t id;    /* proxy channel id carried in every trigger */
  uint32_t peer;  /* peer rank, for error reports */
} PortChannelHandle;

/* Device-wide settings each module keeps in a __device__ variable of this type (mbConfig,
 * atomic_device.cuh); the host writes it at start-up (internal/gpu SetDeviceConfig). */
typedef struct {
  uint64_t timeoutNs;  /* a spin that lasts longer records an error and gives up */
  uint64_t errorWord;  /* uint64_t* in mapped host memory: first error recorded (0 = none) */
  uint32_t rank;
  uint32_t nranks;
} DeviceConfig;

/* Cross-launch state of one collective algorithm instance, in device memory, zeroed at
 * set-up (collective_device.cuh): a launch counter and the counters of grid-wide barriers. */
typedef struct {
  uint32_t launches; /* completed launches; flag of the running launch = launches + 1 */
  uint32_t arrived;  /* blocks that finished this launch */
  uint32_t go;       /* launch number whose start barrier has passed */
  uint32_t done;     /* blocks past their main work (end barrier) */
} LaunchState;

/* ---- Proxy trigger: two 64-bit words ----
 * fst: bits  0..35 source offset, bits 36..63 size bits 0..27
 * snd: bits  0..35 destination offset, bits 36..43 size bits 28..35,
 *      bits 44..59 channel id, bits 60..62 type, bit 63 valid
 * Offsets and sizes are limited to 2^36 bytes (64 GiB).
 */
typedef struct {
  uint64_t fst;
  uint64_t snd;
} ProxyTrigger;

enum {
  TRIGGER_DATA = 1, /* copy size bytes from src+srcOffset to dst+dstOffset */
  TRIGGER_FLAG = 2, /* signal the peer's semaphore after the copy */
  TRIGGER_SYNC = 4  /* flush: wait until all earlier work of the channel is done */
};

/* Both words carry a valid bit (bit 63), so the proxy never takes a trigger whose halves
 * it saw at different times. Size: 27 bits in fst, 8 in snd (up to 32 GiB less one byte;
 * PortChannel splits larger copies). */
#define TRIGGER_MAX_BYTES (((uint64_t)1 << 35) - 1)
#define TRIGGER_VALID ((uint64_t)1 << 63)

MB_HD ProxyTrigger makeTrigger(uint32_t type, uint32_t channel, uint64_t dstOffset, uint64_t srcOffset,
                               uint64_t size) {
  const uint64_t m36 = (((uint64_t)1) << 36) - 1;
  ProxyTrigger t;
  t.fst = (srcOffset & m36) | ((size & ((((uint64_t)1) << 27) - 1)) << 36) | TRIGGER_VALID;
  t.snd = (dstOffset & m36) | (((size >> 27) & 0xff) << 36) | (((uint64_t)(channel & 0xffff)) << 44) |
          (((uint64_t)(type & 0x7)) << 60) | TRIGGER_VALID;
  return t;
}

/* ---- Device error word ----
 * bits 0..7 code, bits 8..23 peer rank, bits 24..39 channel index, bits 40..63 block index
 */
enum {
  DEVERR_NONE = 0,
  DEVERR_SEMAPHORE_WAIT = 1, /* a semaphore wait timed out */
  DEVERR_FIFO_PUSH = 2,      /* the proxy FIFO stayed full */
  DEVERR_FIFO_FLUSH = 3,     /* the proxy did not finish a flush */
  DEVERR_PACKET_READ = 4,    /* LL packets from a peer did not arrive */
  DEVERR_BAD_ARGUMENT = 5,   /* a kernel was launched with arguments it cannot handle */
  DEVERR_PROXY = 6           /* the host proxy failed (set by the host, stops device waits) */
};

MB_HD uint64_t makeDeviceError(uint32_t code, uint32_t peer, uint32_t channel, uint32_t block) {
  return ((uint64_t)(code & 0xff)) | (((uint64_t)(peer & 0xffff)) << 8) |
         (((uint64_t)(channel & 0xffff)) << 24) | (((uint64_t)(block & 0xffffff)) << 40);
}

#endif /* MSCCLPP_BENCH_HANDLES_H_ */
