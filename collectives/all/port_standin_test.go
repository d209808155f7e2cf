package all

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap/bootstraptest"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allgather"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allreduce"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
)

// The port-channel algorithms end to end on the CPU: ranks on simulated hosts (their own
// MSCCLPP_BENCH_HOSTID-style host ids), so the mesh connects them over Ethernet (loopback
// sockets, staging through the stand-in's host memory) and the real proxy serves the FIFO.
// The kernels are Go transcriptions of collectives/allgather/allgather_portput.cu and
// collectives/allreduce/allreduce_portrsag.cu (int32 sum): the same triggers, in the same
// order, and the same semaphore counts. What runs for real is the algorithms' host side
// (channels, scratch, offsets, arguments), the proxy, the Ethernet connection and the data
// it moves.

// devPort drives one port channel from a stand-in kernel, as port_channel_device.cuh does.
type devPort struct {
	g *devicetest.GPU
	h channels.PortChannelHandle
}

func word(g *devicetest.GPU, p uint64) *uint64 {
	b, err := g.Space().Bytes(device.Ptr(p), 8)
	if err != nil {
		panic(err) // the stand-in's segmentation fault
	}
	return (*uint64)(unsafe.Pointer(&b[0]))
}

func spin(what string, done func() bool) error {
	deadline := time.Now().Add(20 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Microsecond)
	}
	return nil
}

func (c devPort) push(typ uint32, dstOff, srcOff, size uint64) (uint64, error) {
	f := c.h.Fifo
	pos := atomic.AddUint64(word(c.g, f.Head), 1) - 1
	if err := spin("a FIFO slot", func() bool { return pos < atomic.LoadUint64(word(c.g, f.Tail))+uint64(f.Size) }); err != nil {
		return 0, err
	}
	t := channels.MakeTrigger(typ, c.h.ID, dstOff, srcOff, size)
	slot := f.Triggers + (pos&uint64(f.Size-1))*16
	atomic.StoreUint64(word(c.g, slot), t.Fst)
	atomic.StoreUint64(word(c.g, slot+8), t.Snd)
	return pos, nil
}

func (c devPort) sync(pos uint64) error {
	return spin("the proxy", func() bool { return atomic.LoadUint64(word(c.g, c.h.Fifo.Tail)) > pos })
}

// creditAll consumes n signals of every channel, then signals each peer a credit with a
// flush and waits for it, as the last block of allgather_portput does.
func creditAll(cs []devPort, n uint64) error {
	for _, c := range cs {
		c.advance(n)
		pos, err := c.push(channels.TriggerFlag|channels.TriggerSync, 0, 0, 0)
		if err != nil {
			return err
		}
		if err := c.sync(pos); err != nil {
			return err
		}
	}
	return nil
}

// waitCount waits until the inbound token reaches expected+n (expected is not advanced).
func (c devPort) waitCount(n uint64) error {
	want := *word(c.g, c.h.Sem.Expected) + n
	return spin(fmt.Sprintf("signal %d from rank %d", want, c.h.Peer), func() bool { return atomic.LoadUint64(word(c.g, c.h.Sem.Inbound)) >= want })
}

func (c devPort) advance(n uint64) { *word(c.g, c.h.Sem.Expected) += n }

func ports(g *devicetest.GPU, p uint64, n int) []devPort {
	size := uint64(unsafe.Sizeof(channels.PortChannelHandle{}))
	b, err := g.Space().Bytes(device.Ptr(p), size*uint64(n))
	if err != nil {
		panic(err)
	}
	out := make([]devPort, n)
	for i := range out {
		out[i] = devPort{g, *(*channels.PortChannelHandle)(unsafe.Pointer(&b[uint64(i)*size]))}
	}
	return out
}

func launchState(g *devicetest.GPU, p uint64) *channels.LaunchState {
	b, err := g.Space().Bytes(device.Ptr(p), uint64(unsafe.Sizeof(channels.LaunchState{})))
	if err != nil {
		panic(err)
	}
	return (*channels.LaunchState)(unsafe.Pointer(&b[0]))
}

func bytesAt(g *devicetest.GPU, p, n uint64) []byte {
	b, err := g.Space().Bytes(device.Ptr(p), n)
	if err != nil {
		panic(err)
	}
	return b
}

// split is copy_device.cuh's split.
func split(total, parts, i, align uint64) (uint64, uint64) {
	units := (total + align - 1) / align
	per, extra := units/parts, units%parts
	b := i*per + min(i, extra)
	e := b + per
	if i < extra {
		e++
	}
	return min(b*align, total), min(e*align, total)
}

// allgatherPortputKernel: (chans, sigChans, scratch, bigBytes, halfBytes, in, out, srcOff,
// chunk, rank, nranks, state).
func allgatherPortputKernel(g *devicetest.GPU, a []uint64) error {
	scratch, big, halfBytes, in, out, srcOff, chunk, rank, nranks := a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]
	st := launchState(g, a[11])
	chans, sigs := ports(g, a[0], int(nranks-1)), ports(g, a[1], int(nranks-1))
	flag := uint64(st.Launches) + 1
	credit := uint64(0)
	if flag > 1 {
		credit = 1
	}
	half := chunk*nranks <= halfBytes
	region := uint64(0)
	if half {
		region = big + (flag&1)*halfBytes
	}
	for i, c := range chans {
		if credit > 0 && !half {
			if err := sigs[i].waitCount(1); err != nil {
				return err
			}
		}
		if a[0] == a[1] {
			if _, err := c.push(channels.TriggerData|channels.TriggerFlag, region+rank*chunk, srcOff, chunk); err != nil {
				return err
			}
			continue
		}
		if _, err := c.push(channels.TriggerData, region+rank*chunk, srcOff, chunk); err != nil {
			return err
		}
		if _, err := sigs[i].push(channels.TriggerFlag, 0, 0, 0); err != nil {
			return err
		}
	}
	chans = sigs
	for _, c := range chans {
		if err := c.waitCount(credit + 1); err != nil {
			return err
		}
	}
	for r := uint64(0); r < nranks; r++ {
		src := scratch + region + r*chunk
		if r == rank {
			src = in
		}
		if dst := out + r*chunk; src != dst {
			copy(bytesAt(g, dst, chunk), bytesAt(g, src, chunk))
		}
	}
	if err := creditAll(chans, credit+1); err != nil {
		return err
	}
	st.Launches++
	return nil
}

// allreducePortRSAGKernel (int32 sum): (rsChans, agChans, scratch, slotBytes, in, out,
// inOff, outOff, count, rank, nranks, state).
func allreducePortRSAGKernel(g *devicetest.GPU, a []uint64) error {
	scratch, slot, in, out, inOff, outOff, count, rank, nranks := a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]
	st := launchState(g, a[11])
	rs, ag := ports(g, a[0], int(nranks-1)), ports(g, a[1], int(nranks-1))
	bytes := count * 4
	mb, me := split(bytes, nranks, rank, 16)
	for i, c := range rs {
		peer := uint64(i)
		if peer >= rank {
			peer++
		}
		b, e := split(bytes, nranks, peer, 16)
		typ, size := uint32(channels.TriggerData|channels.TriggerFlag), e-b
		if size == 0 {
			typ = channels.TriggerFlag
		}
		if _, err := c.push(typ, rank*slot, inOff+b, size); err != nil {
			return err
		}
	}
	for _, c := range rs {
		if err := c.waitCount(1); err != nil {
			return err
		}
	}
	res := bytesAt(g, out+mb, me-mb)
	for k := uint64(0); k+4 <= me-mb; k += 4 {
		var sum int32
		for r := uint64(0); r < nranks; r++ {
			src := scratch + r*slot + k
			if r == rank {
				src = in + mb + k
			}
			sum += int32(binary.LittleEndian.Uint32(bytesAt(g, src, 4)))
		}
		binary.LittleEndian.PutUint32(res[k:], uint32(sum))
	}
	for i, c := range ag {
		rs[i].advance(1)
		typ := uint32(channels.TriggerData | channels.TriggerFlag)
		if me == mb {
			typ = channels.TriggerFlag
		}
		if _, err := c.push(typ, outOff+mb, outOff+mb, me-mb); err != nil {
			return err
		}
		if err := c.waitCount(1); err != nil {
			return err
		}
		c.advance(1)
		pos, err := c.push(channels.TriggerSync, 0, 0, 0)
		if err != nil {
			return err
		}
		if err := c.sync(pos); err != nil {
			return err
		}
	}
	st.Launches++
	return nil
}

// allreducePortOneShotKernel (int32 sum): (chans, scratch, slotBytes, in, out, inOff,
// count, rank, nranks, state).
func allreducePortOneShotKernel(g *devicetest.GPU, a []uint64) error {
	scratch, slot, in, out, inOff, count, rank, nranks := a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]
	st := launchState(g, a[9])
	chans := ports(g, a[0], int(nranks-1))
	bytes := count * 4
	half := ((uint64(st.Launches) + 1) & 1) * nranks * slot
	for _, c := range chans {
		if bytes == 0 {
			if _, err := c.push(channels.TriggerFlag, 0, 0, 0); err != nil {
				return err
			}
			continue
		}
		if _, err := c.push(channels.TriggerData|channels.TriggerFlag, half+rank*slot, inOff, bytes); err != nil {
			return err
		}
		pos, err := c.push(channels.TriggerSync, 0, 0, 0)
		if err != nil {
			return err
		}
		if err := c.sync(pos); err != nil {
			return err
		}
	}
	for _, c := range chans {
		if err := c.waitCount(1); err != nil {
			return err
		}
	}
	sumSlots(g, out, in, scratch+half, slot, bytes, rank, nranks)
	for _, c := range chans {
		c.advance(1)
	}
	st.Launches++
	return nil
}

// sumSlots is the one-shot all-reduces' reduction (int32 sum): into out, my input (in)
// and the other ranks' slots of the scratch half at slots (slot bytes apart), in rank order.
func sumSlots(g *devicetest.GPU, out, in, slots, slot, bytes, rank, nranks uint64) {
	res := bytesAt(g, out, bytes)
	for k := uint64(0); k+4 <= bytes; k += 4 {
		var sum int32
		for r := uint64(0); r < nranks; r++ {
			src := slots + r*slot + k
			if r == rank {
				src = in + k
			}
			sum += int32(binary.LittleEndian.Uint32(bytesAt(g, src, 4)))
		}
		binary.LittleEndian.PutUint32(res[k:], uint32(sum))
	}
}

// portJob is n ranks on n simulated hosts, with the shared input and output buffers.
func portJob(t *testing.T, n int, bufBytes uint64) []*collectives.Env {
	t.Helper()
	hosts := make([]string, n)
	for r := range hosts {
		hosts[r] = fmt.Sprintf("h%d", r)
	}
	envs := standinJob(t, hosts, bufBytes, portKernels())
	for r, e := range envs {
		if tr := e.Mesh.PairTransport(0, 1); tr != ethernet.Transport {
			t.Fatalf("rank %d: ranks 0 and 1 connect over %v, want Ethernet", r, tr)
		}
	}
	return envs
}

// addFamily adds a kernel family whose int32 sum kernel is int32Sum; the set-up looks every
// kernel of the family up, the others fail when launched.
// portKernels are the stand-in kernels of allgather portput and allreduce portrsag and
// portoneshot.
func portKernels() map[string]devicetest.Kernel {
	kernels := map[string]devicetest.Kernel{"allgather_portput": allgatherPortputKernel}
	addFamily(kernels, "allreduce_portrsag", allreducePortRSAGKernel)
	addFamily(kernels, "allreduce_portoneshot", allreducePortOneShotKernel)
	return kernels
}

func addFamily(kernels map[string]devicetest.Kernel, family string, int32Sum devicetest.Kernel) {
	for _, dt := range collectives.Datatypes {
		for _, op := range collectives.Ops {
			kernels[fmt.Sprintf("%s_%s_%s", family, dt.Name, op)] = func(*devicetest.GPU, []uint64) error {
				return fmt.Errorf("only int32 sum is transcribed for the stand-in")
			}
		}
	}
	kernels[family+"_int32_sum"] = int32Sum
}

// standinJob is one rank per entry of hosts, on the simulated host it names (ranks of one
// host connect by the stand-in's CUDA IPC, hosts by Ethernet over loopback), with the
// shared input and output buffers.
func standinJob(t *testing.T, hosts []string, bufBytes uint64, kernels map[string]devicetest.Kernel) []*collectives.Env {
	t.Helper()
	return standinJobMode(t, hosts, bufBytes, kernels, channels.ModeAuto)
}

// standinJobMode is standinJob with the pairs connected as mode says (--transport).
func standinJobMode(t *testing.T, hosts []string, bufBytes uint64, kernels map[string]devicetest.Kernel, mode channels.Mode) []*collectives.Env {
	t.Helper()
	n := len(hosts)
	// Port channels to other hosts keep their tokens in host memory (NetworkHostTokens):
	// their files go to a directory of the test's own, not /dev/shm.
	old := channels.ShmDir
	channels.ShmDir = t.TempDir()
	t.Cleanup(func() { channels.ShmDir = old })
	space := devicetest.NewSpace(kernels)
	boots := bootstraptest.Loopback(t, n, 20*time.Second)
	envs := make([]*collectives.Env, n)
	errs := bounded.Ranks(t, n, 30*time.Second, func(r int) error {
		g := space.NewGPU(r)
		m, err := channels.NewMesh(g, boots[r], withEthernet(channels.MeshOptions{Mode: mode, Timeout: 20 * time.Second, Hostname: "node", HostID: hosts[r]},
			ethernet.Options{Sockets: 2, Chunk: 64 << 10, Depth: 2, Spin: 20 * time.Microsecond})) // spin: the control sender threads
		if err != nil {
			return err
		}
		t.Cleanup(func() { m.Close() })
		e := &collectives.Env{GPU: g, Mesh: m, Rank: r, NRanks: n, SMs: 4, MaxBytes: int64(bufBytes), InBytes: bufBytes, OutBytes: bufBytes, Layout: collectives.LayoutOf(m)}
		for _, buf := range []**channels.Buffer{&e.In, &e.Out} {
			p, err := m.Alloc(bufBytes)
			if err != nil {
				return err
			}
			if *buf, err = m.Share(p, bufBytes); err != nil {
				return err
			}
		}
		envs[r] = e
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return envs
}

// onAll runs fn on every rank at once (a launch blocks until its peers' data arrived).
func onAll(t *testing.T, envs []*collectives.Env, fn func(e *collectives.Env) error) {
	t.Helper()
	for r, err := range bounded.Ranks(t, len(envs), 60*time.Second, func(r int) error { return fn(envs[r]) }) {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
}

// instancesOn makes algorithm a's instance on each rank of envs at once, indexed by rank
// (envs may hold some of the job's ranks: one simulated host's).
func instancesOn(t *testing.T, envs []*collectives.Env, a *collectives.Algorithm) []collectives.Instance {
	t.Helper()
	insts := make([]collectives.Instance, envs[0].NRanks)
	onAll(t, envs, func(e *collectives.Env) error {
		var err error
		insts[e.Rank], err = a.New(e) // each rank its own element
		return err
	})
	return insts
}

func fillInput(e *collectives.Env, a *collectives.LaunchArgs, launch int) {
	in := bytesAt(e.GPU.(*devicetest.GPU), uint64(e.InPtr(a, e.Rank)), a.SendBytes)
	for i := range in {
		in[i] = byte(i*7 + e.Rank*31 + launch*13)
	}
}

func TestPortAlgorithmsAcrossHostsOnStandin(t *testing.T) {
	// halves 16 KiB: allgather portput's launches switch between the scratch's halves and
	// its big region (with credits) within the sweep, both ways.
	for _, half := range []uint64{allgather.PortHalfBytes, 16 << 10} {
		for _, n := range []int{2, 3} {
			t.Run(fmt.Sprintf("%d hosts, halves of %d bytes", n, half), func(t *testing.T) {
				defer func(old uint64) { allgather.PortHalfBytes = old }(allgather.PortHalfBytes)
				allgather.PortHalfBytes = half
				const bufBytes = 1 << 20
				checkGatherReduce(t, portJob(t, n, bufBytes), allgather.NewAllgatherPortput, allreduce.NewAllreducePortRSAG)
			})
		}
	}
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d hosts, allreduce portoneshot", n), func(t *testing.T) {
			checkGatherReduce(t, portJob(t, n, 1<<20), allgather.NewAllgatherPortput, allreduce.NewAllreducePortOneShot)
		})
	}
}

// checkGatherReduce sets up an all-gather (newAG) and an all-reduce (newAR) on the ranks
// of envs (of a job whose other ranks, if any, run the same in other processes), runs
// them (int32 sum) at odd sizes, in and out of place, at offsets, several launches per
// instance so that credits and semaphore counts carry over, and checks every byte of
// these ranks' outputs.
func checkGatherReduce(t *testing.T, envs []*collectives.Env, newAG, newAR func(*collectives.Env) (collectives.Instance, error)) {
	t.Helper()
	n := envs[0].NRanks
	ags, ars := make([]collectives.Instance, n), make([]collectives.Instance, n)
	onAll(t, envs, func(e *collectives.Env) error {
		var err error
		if ags[e.Rank], err = newAG(e); err != nil {
			return err
		}
		ars[e.Rank], err = newAR(e)
		return err
	})
	int32T, err := collectives.LookupDatatype("int32")
	if err != nil {
		t.Fatal(err)
	}
	// Odd sizes, in and out of place, at offsets; several launches per instance so
	// that the credits and counts carry over.
	for launch, count := range []uint64{1, 5, 1000, 4097, 60000, 3} {
		for _, inPlace := range []bool{false, true} {
			off := uint64(launch) * 256
			// all-gather: count int32 per rank
			// The offsets as the harness sets them (Harness.at): Shift, the in-place
			// strides of nccl-tests' counts, then this rank's own offsets.
			ag := &collectives.LaunchArgs{Type: int32T, Count: int64(count), SendBytes: 4 * count, RecvBytes: 4 * count * uint64(n), InPlace: inPlace, Shift: off, SendInPlace: 4 * count}
			onAll(t, envs, func(e *collectives.Env) error {
				a := *ag
				a.InOff, a.OutOff = a.InOffOf(e.Rank), a.OutOffOf(e.Rank)
				fillInput(e, &a, launch)
				return ags[e.Rank].Launch(&a, 0)
			})
			for _, e := range envs {
				got := bytesAt(e.GPU.(*devicetest.GPU), uint64(e.OutPtr(ag, e.Rank)), ag.RecvBytes)
				for i, b := range got {
					r, j := i/int(ag.SendBytes), i%int(ag.SendBytes)
					if want := byte(j*7 + r*31 + launch*13); b != want {
						t.Fatalf("allgather %d x int32 (in place %v) rank %d: byte %d (rank %d's %d) = %d, want %d", count, inPlace, e.Rank, i, r, j, b, want)
					}
				}
			}
			// all-reduce: count int32, sum
			ar := &collectives.LaunchArgs{Type: int32T, Op: collectives.OpSum, Count: int64(count), SendBytes: 4 * count, RecvBytes: 4 * count, InPlace: inPlace, Shift: off, InOff: off, OutOff: off}
			onAll(t, envs, func(e *collectives.Env) error {
				fillInput(e, ar, launch)
				return ars[e.Rank].Launch(ar, 0)
			})
			for _, e := range envs {
				got := bytesAt(e.GPU.(*devicetest.GPU), uint64(e.OutPtr(ar, e.Rank)), ar.RecvBytes)
				for k := 0; k < int(count); k++ {
					var want int32
					for r := 0; r < n; r++ {
						var w [4]byte
						for j := range w {
							w[j] = byte((4*k+j)*7 + r*31 + launch*13)
						}
						want += int32(binary.LittleEndian.Uint32(w[:]))
					}
					if v := int32(binary.LittleEndian.Uint32(got[4*k:])); v != want {
						t.Fatalf("allreduce %d x int32 (in place %v) rank %d: element %d = %d, want %d", count, inPlace, e.Rank, k, v, want)
					}
				}
			}
		}
	}
}
