import re,sys
p='kernels/allreduce.cu'
s=open(p).read()
hdr='''#ifdef MB_PORT_TRACE
__device__ unsigned long long mbTr[200];
#define TR(i) do { if (blockIdx.x == 0 && threadIdx.x == 0) mbTr[i] = globalTimer(); } while (0)
#else
#define TR(i)
#endif
template <typename T, int Op>
__device__ void allreducePort('''
s=s.replace('template <typename T, int Op>\n__device__ void allreducePort(',hdr,1)
s=s.replace('''  const Range mine = chunkOf(rank);
  if (blockIdx.x == 0 && threadIdx.x < npeers) {''','''  const Range mine = chunkOf(rank);
  TR(0);
  if (blockIdx.x == 0 && threadIdx.x < npeers) {''',1)
s=s.replace('''      c.putWithSignal(rank * slotBytes + off, inOff + rq.begin + off, min(pieceBytes, rq.size() - off));
    }
  }''','''      c.putWithSignal(rank * slotBytes + off, inOff + rq.begin + off, min(pieceBytes, rq.size() - off));
    }
  }
  TR(1);''',1)
s=s.replace('''  auto wait = [&](uint64_t k) {
    if (threadIdx.x < npeers) {''','''  auto wait = [&](uint64_t k) {
    TR(100 + k);
    if (threadIdx.x < npeers) {''',1)
s=s.replace('''      }
    }
    __syncthreads();
  };
  // offsets within my chunk; my chunk of the outputs is at mine.begin''','''      }
    }
    __syncthreads();
    TR(2 + k);
  };
  // offsets within my chunk; my chunk of the outputs is at mine.begin''',1)
s=s.replace('''  reduceBroadcast<T, Op>(src, wait, nranks, 0, mine.size(), pieces, pieceBytes, out, mine.begin, outChans, outOff);
  __syncthreads();
  if (threadIdx.x < npeers) MemoryChannel{outChans[threadIdx.x]}.signal();
  if (lastBlock(state) && threadIdx.x < npeers) {
    MemoryChannel{outChans[threadIdx.x]}.waitN(gridDim.x);
    *reinterpret_cast<volatile uint64_t*>(rsChans[threadIdx.x].sem.expected) += pieces;
    PortChannel{rsChans[threadIdx.x]}.flush();
  }''','''  reduceBroadcast<T, Op>(src, wait, nranks, 0, mine.size(), pieces, pieceBytes, out, mine.begin, outChans, outOff);
  __syncthreads();
  TR(98);
  if (threadIdx.x < npeers) MemoryChannel{outChans[threadIdx.x]}.signal();
  if (lastBlock(state) && threadIdx.x < npeers) {
#ifdef MB_PORT_TRACE
    if (threadIdx.x == 0) mbTr[196] = globalTimer();
#endif
    MemoryChannel{outChans[threadIdx.x]}.waitN(gridDim.x);
#ifdef MB_PORT_TRACE
    if (threadIdx.x == 0) mbTr[197] = globalTimer();
#endif
    *reinterpret_cast<volatile uint64_t*>(rsChans[threadIdx.x].sem.expected) += pieces;
    PortChannel{rsChans[threadIdx.x]}.flush();
#ifdef MB_PORT_TRACE
    if (threadIdx.x == 0 && bytes == (256ull << 20) && pieces <= 64) {
      unsigned long long t0 = mbTr[0];
      printf("TR r%u pieces %llu push %.1f\\n", rank, (unsigned long long)pieces, (mbTr[1] - t0) / 1e3);
      for (uint64_t k = 0; k < pieces; k++)
        printf("TR r%u k%02llu idle %.1f got %.1f\\n", rank, (unsigned long long)k, (mbTr[100 + k] - t0) / 1e3, (mbTr[2 + k] - t0) / 1e3);
      printf("TR r%u reduced %.1f lastin %.1f waitN %.1f flushed %.1f\\n", rank, (mbTr[98] - t0) / 1e3, (mbTr[196] - t0) / 1e3, (mbTr[197] - t0) / 1e3, (globalTimer() - t0) / 1e3);
    }
#endif
  }''',1)
assert s.count('TR(')>=5 and 'mbTr[197]' in s
open(p,'w').write(s)
