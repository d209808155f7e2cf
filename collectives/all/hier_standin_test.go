package all

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allgather"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allreduce"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
)

// The hierarchical algorithms end to end on the CPU: ranks on simulated hosts of several
// ranks each, so the mesh connects a host's ranks by the stand-in's CUDA IPC (memory
// channels into shared host memory) and the hosts by Ethernet (loopback sockets, the real
// proxy). The kernels are Go transcriptions of collectives/family/hier/hier.cu (one block;
// int32 sum for the all-reduce): the same triggers, copies and semaphore counts in the same
// order.

// devMem drives one memory channel from a stand-in kernel, as memory_channel_device.cuh does.
type devMem struct {
	g *devicetest.GPU
	h channels.MemoryChannelHandle
}

func mems(g *devicetest.GPU, p uint64, n int) []devMem {
	size := uint64(unsafe.Sizeof(channels.MemoryChannelHandle{}))
	out := make([]devMem, n)
	if n == 0 {
		return out
	}
	b := bytesAt(g, p, size*uint64(n))
	for i := range out {
		out[i] = devMem{g, *(*channels.MemoryChannelHandle)(unsafe.Pointer(&b[uint64(i)*size]))}
	}
	return out
}

func (c devMem) signal() { atomic.AddUint64(word(c.g, c.h.Sem.RemoteInbound), 1) }

func (c devMem) wait() error {
	exp := word(c.g, c.h.Sem.Expected)
	*exp++
	want := *exp
	return spin(fmt.Sprintf("memory-channel signal %d from rank %d", want, c.h.Peer), func() bool {
		return atomic.LoadUint64(word(c.g, c.h.Sem.Inbound)) >= want
	})
}

// barrier is peerBarrier: signal every peer, then wait for each.
func memBarrier(cs []devMem) error {
	for _, c := range cs {
		c.signal()
	}
	for _, c := range cs {
		if err := c.wait(); err != nil {
			return err
		}
	}
	return nil
}

func other(i, me uint64) uint64 {
	if i < me {
		return i
	}
	return i + 1
}

// allgatherHierKernel: (localChans, railChans, sigChans, ranks, in, out, srcOff, outOff,
// chunk, rank, host, local, nhosts, nlocal, state).
func allgatherHierKernel(g *devicetest.GPU, a []uint64) error {
	in, out, srcOff, outOff, chunk, rank, host, local, nhosts, nlocal := a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13]
	st := launchState(g, a[14])
	nrail, nlp := int(nhosts-1), int(nlocal-1)
	locals, rail, sigs := mems(g, a[0], nlp), []devPort(nil), []devPort(nil)
	if nrail > 0 {
		rail, sigs = ports(g, a[1], nrail), ports(g, a[2], nrail)
	}
	for t := range rail {
		if _, err := sigs[t].push(channels.TriggerFlag, 0, 0, 0); err != nil { // my entry
			return err
		}
	}
	if err := memBarrier(locals); err != nil {
		return err
	}
	for t := range rail {
		if err := sigs[t].waitCount(1); err != nil { // the peer's entry
			return err
		}
		if a[1] == a[2] {
			if _, err := rail[t].push(channels.TriggerData|channels.TriggerFlag, outOff+rank*chunk, srcOff, chunk); err != nil {
				return err
			}
			continue
		}
		if _, err := rail[t].push(channels.TriggerData, outOff+rank*chunk, srcOff, chunk); err != nil {
			return err
		}
		if _, err := sigs[t].push(channels.TriggerFlag, 0, 0, 0); err != nil {
			return err
		}
	}
	toLocals := func(src, slot uint64) {
		for _, c := range locals {
			copy(bytesAt(g, c.h.Remote+outOff+slot*chunk, chunk), bytesAt(g, src, chunk))
		}
	}
	if mine := out + rank*chunk; in != mine {
		copy(bytesAt(g, mine, chunk), bytesAt(g, in, chunk))
	}
	toLocals(in, rank)
	for _, c := range sigs {
		if err := c.waitCount(2); err != nil {
			return err
		}
	}
	ranks := bytesAt(g, a[3], 4*nhosts*nlocal)
	for t := range rail {
		q := uint64(binary.LittleEndian.Uint32(ranks[4*(other(uint64(t), host)*nlocal+local):]))
		toLocals(out+q*chunk, q)
	}
	for _, c := range sigs {
		c.advance(2)
		pos, err := c.push(channels.TriggerSync, 0, 0, 0)
		if err == nil {
			err = c.sync(pos)
		}
		if err != nil {
			return err
		}
	}
	if err := memBarrier(locals); err != nil {
		return err
	}
	st.Launches++
	return nil
}

// sumInt32 stores at dst the element-wise int32 sum of the size-byte spans srcs.
func sumInt32(g *devicetest.GPU, srcs []uint64, dst, size uint64) {
	res := make([]byte, size)
	for k := uint64(0); k+4 <= size; k += 4 {
		var sum int32
		for _, s := range srcs {
			sum += int32(binary.LittleEndian.Uint32(bytesAt(g, s+k, 4)))
		}
		binary.LittleEndian.PutUint32(res[k:], uint32(sum))
	}
	copy(bytesAt(g, dst, size), res)
}

// allreduceHierKernel (int32 sum): (inChans, outChans, rsChans, agChans, scratch,
// slotBytes, in, out, inOff, outOff, count, host, local, nhosts, nlocal, states).
func allreduceHierKernel(g *devicetest.GPU, a []uint64) error {
	scratch, slot, in, out, inOff, outOff, count, host, local, nhosts, nlocal := a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14]
	st := launchState(g, a[15])
	nrail, nlp := int(nhosts-1), int(nlocal-1)
	inChans, outChans := mems(g, a[0], nlp), mems(g, a[1], nlp)
	var rs, ag []devPort
	if nrail > 0 {
		rs, ag = ports(g, a[2], nrail), ports(g, a[3], nrail)
	}
	sb, se := split(count*4, nlocal, local, 16)
	if err := memBarrier(inChans); err != nil { // startBarrier
		return err
	}
	srcs := make([]uint64, nlocal)
	for j := range srcs {
		switch k := uint64(j); {
		case k == local:
			srcs[j] = in + sb
		case k < local:
			srcs[j] = inChans[k].h.Remote + inOff + sb
		default:
			srcs[j] = inChans[k-1].h.Remote + inOff + sb
		}
	}
	sumInt32(g, srcs, out+sb, se-sb)
	if nrail > 0 {
		for t, c := range rs {
			b, e := split(se-sb, nhosts, other(uint64(t), host), 16)
			typ := uint32(channels.TriggerData | channels.TriggerFlag)
			if e == b {
				typ = channels.TriggerFlag
			}
			if _, err := c.push(typ, host*slot, outOff+sb+b, e-b); err != nil {
				return err
			}
		}
		for _, c := range rs {
			if err := c.waitCount(1); err != nil {
				return err
			}
		}
		mb, me := split(se-sb, nhosts, host, 16)
		part := out + sb + mb
		srcs := make([]uint64, nhosts)
		for h := range srcs {
			srcs[h] = scratch + uint64(h)*slot
		}
		srcs[host] = part
		sumInt32(g, srcs, part, me-mb)
		for _, c := range ag {
			typ := uint32(channels.TriggerData | channels.TriggerFlag)
			if me == mb {
				typ = channels.TriggerFlag
			}
			if _, err := c.push(typ, outOff+sb+mb, outOff+sb+mb, me-mb); err != nil {
				return err
			}
		}
		for _, c := range ag {
			if err := c.waitCount(1); err != nil {
				return err
			}
		}
	}
	for _, c := range outChans {
		copy(bytesAt(g, c.h.Remote+outOff+sb, se-sb), bytesAt(g, out+sb, se-sb))
	}
	for t := range rs {
		rs[t].advance(1)
		ag[t].advance(1)
		pos, err := ag[t].push(channels.TriggerSync, 0, 0, 0)
		if err != nil {
			return err
		}
		if err := ag[t].sync(pos); err != nil {
			return err
		}
	}
	if err := memBarrier(outChans); err != nil {
		return err
	}
	st.Launches++
	return nil
}

// hierKernels are the stand-in kernels of collectives/family/hier/hier.cu.
func hierKernels() map[string]devicetest.Kernel {
	k := map[string]devicetest.Kernel{"allgather_hier": allgatherHierKernel}
	addFamily(k, "allreduce_hier", allreduceHierKernel)
	return k
}

func TestHierAlgorithmsOnStandin(t *testing.T) {
	for _, tt := range []struct {
		name  string
		hosts []string // each rank's host
	}{
		{"2 hosts of 2", []string{"a", "a", "b", "b"}},
		{"2 hosts of 2, interleaved", []string{"a", "b", "a", "b"}},
		{"3 hosts of 2", []string{"a", "a", "b", "b", "c", "c"}},
		{"1 host of 3", []string{"a", "a", "a"}},
		{"3 hosts of 1", []string{"a", "b", "c"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const bufBytes = 2 << 20 // 6 ranks' 60000 int32 each, at an offset
			envs := standinJob(t, tt.hosts, bufBytes, hierKernels())
			for i := range tt.hosts {
				for j := i + 1; j < len(tt.hosts); j++ {
					want := ethernet.Transport
					if tt.hosts[i] == tt.hosts[j] {
						want = cudaipc.Transport
					}
					if got := envs[0].Mesh.PairTransport(i, j); got != want {
						t.Fatalf("ranks %d and %d (hosts %s, %s) connect over %v, want %v", i, j, tt.hosts[i], tt.hosts[j], got, want)
					}
				}
			}
			checkGatherReduce(t, envs, allgather.NewAllgatherHier, allreduce.NewAllreduceHier)
		})
	}
}

// TestPeerSubsetsRefused: memory channels only to ranks of this host; no peer list names
// this rank, a rank outside the job, or a rank twice.
func TestPeerSubsetsRefused(t *testing.T) {
	envs := standinJob(t, []string{"a", "a", "b", "b"}, 4096, hierKernels())
	m, out := envs[0].Mesh, envs[0].Out
	if _, err := m.MemoryChannelsTo([]int{2}, out, out.Ptrs[0]); err == nil || !strings.Contains(err.Error(), "reaches rank 2 over ethernet") {
		t.Errorf("memory channel from host a to host b: %v, want an error naming the transport", err)
	}
	for _, peers := range [][]int{{0}, {4}, {-1}, {1, 1}} {
		if _, err := m.MemoryChannelsTo(peers, out, out.Ptrs[0]); err == nil || !strings.Contains(err.Error(), "bad peer list") {
			t.Errorf("MemoryChannelsTo(%v): %v, want a bad peer list", peers, err)
		}
		if _, err := m.PortChannelsTo(peers, out, out.Ptrs[0], 4096); err == nil || !strings.Contains(err.Error(), "bad peer list") {
			t.Errorf("PortChannelsTo(%v): %v, want a bad peer list", peers, err)
		}
	}
}
