package all

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/alltoallv"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
	"github.com/mscclpp-bench/mscclpp-bench/harness"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
)

// The portput algorithms of reducescatter, reduce, alltoall, alltoallv, sendrecv,
// broadcast, gather, scatter and hypercube end to end on the CPU, across simulated hosts
// (Ethernet over loopback between hosts, the stand-in's CUDA IPC inside one, the real
// proxy). The kernel is a Go transcription of collectives/family/portstaged/port_staged.cu
// (one block; int32 sum for the reductions): the same triggers, in the same order, and the
// same semaphore counts. The expected outputs are computed here from each collective's
// definition.

// psSendSeg is port_staged_device.cuh's sendSeg: the segment (offset in the sender's input, bytes)
// of rank from's input that goes to rank to.
func psSendSeg(mode portstaged.PortStagedMode, from, to, unit, total, root, n uint64) (uint64, uint64) {
	switch mode {
	case portstaged.PSReduceScatter, portstaged.PSAlltoall:
		return to * unit, unit
	case portstaged.PSAlltoallv:
		s := alltoallv.AlltoallvSegment(int(from), int(to), int(n), int64(total))
		return s.From, s.Bytes
	case portstaged.PSSendRecv:
		if to == (from+1)%n && to != from {
			return 0, unit
		}
		return 0, 0
	case portstaged.PSBroadcast:
		if from == root {
			return 0, unit
		}
		return 0, 0
	case portstaged.PSReduce, portstaged.PSGather:
		if to == root {
			return 0, unit
		}
		return 0, 0
	case portstaged.PSScatter:
		if from == root {
			return to * unit, unit
		}
		return to * unit, 0
	case portstaged.PSAllgather, portstaged.PSAllreduce:
		return 0, unit
	}
	return 0, 0
}

// psRecvOff is port_staged_device.cuh's recvOff.
func psRecvOff(mode portstaged.PortStagedMode, from, to, unit, total, n uint64) uint64 {
	switch mode {
	case portstaged.PSAlltoall, portstaged.PSGather, portstaged.PSAllgather:
		return from * unit
	case portstaged.PSAlltoallv:
		return alltoallv.AlltoallvSegment(int(from), int(to), int(n), int64(total)).To
	}
	return 0
}

// portStagedKernel: (chans, sigChans, scratch, bigBytes, halfBytes, slot, in, out, srcOff,
// unit, total, mode, root, rank, nranks, state); reduce: the port_staged_reduce family
// (int32 sum).
func portStagedKernel(reduce bool) devicetest.Kernel {
	return func(g *devicetest.GPU, a []uint64) error {
		scratch, big, half, slot, in, out, srcOff, unit, total := a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]
		mode, root, rank, n := portstaged.PortStagedMode(a[11]), a[12], a[13], a[14]
		st := launchState(g, a[15])
		chans, sigs := ports(g, a[0], int(n-1)), ports(g, a[1], int(n-1))
		flag := uint64(st.Launches) + 1
		credit := uint64(0)
		if flag > 1 {
			credit = 1
		}
		slots := mode.Slots(int(n))
		isHalf := slots*slot <= half
		region := uint64(0)
		if isHalf {
			region = big + (flag&1)*half
		}
		slotAt := func(from uint64) uint64 {
			if slots == 1 {
				return region
			}
			return region + from*slot
		}
		flushFirst := !reduce && in == out && (mode == portstaged.PSAlltoall || mode == portstaged.PSAlltoallv || mode == portstaged.PSSendRecv)
		for i, c := range chans {
			peer := other(uint64(i), rank)
			if credit > 0 && !isHalf {
				if err := sigs[i].waitCount(1); err != nil {
					return err
				}
			}
			off, bytes := psSendSeg(mode, rank, peer, unit, total, root, n)
			dst := slotAt(rank)
			switch {
			case bytes == 0:
				if _, err := sigs[i].push(channels.TriggerFlag, 0, 0, 0); err != nil {
					return err
				}
			case a[0] == a[1]:
				typ := uint32(channels.TriggerData | channels.TriggerFlag)
				if flushFirst {
					typ |= channels.TriggerSync
				}
				pos, err := c.push(typ, dst, srcOff+off, bytes)
				if err != nil {
					return err
				}
				if flushFirst {
					if err := c.sync(pos); err != nil {
						return err
					}
				}
			default:
				if _, err := c.push(channels.TriggerData, dst, srcOff+off, bytes); err != nil {
					return err
				}
				if _, err := sigs[i].push(channels.TriggerFlag, 0, 0, 0); err != nil {
					return err
				}
				if flushFirst {
					pos, err := c.push(channels.TriggerSync, 0, 0, 0)
					if err != nil {
						return err
					}
					if err := c.sync(pos); err != nil {
						return err
					}
				}
			}
		}
		for _, c := range sigs {
			if err := c.waitCount(credit + 1); err != nil {
				return err
			}
		}
		psReceive(g, mode, reduce, rank, root, n, unit, total, in, out, func(q uint64) uint64 { return scratch + slotAt(q) })
		if err := creditAll(sigs, credit+1); err != nil {
			return err
		}
		st.Launches++
		return nil
	}
}

// psInByte is byte i of rank q's input in a test launch.
func psInByte(q, i, launch int) byte { return byte(i*7 + q*31 + launch*13) }

const psPoison = 0xa5

// psWant is byte i of rank r's output (out of RecvBytes) that collective mode must leave,
// from its definition: rank q's input byte j is psInByte(q, j, launch).
func psWant(t *testing.T, mode portstaged.PortStagedMode, a *collectives.LaunchArgs, r, n, i, launch int) byte {
	in := func(q, j int) byte { return psInByte(q, j, launch) }
	sum := func(off int) byte { // byte i%4 of the int32 sum over ranks of element at input offset off
		var s int32
		for q := 0; q < n; q++ {
			var w [4]byte
			for j := range w {
				w[j] = in(q, off+j)
			}
			s += int32(binary.LittleEndian.Uint32(w[:]))
		}
		var w [4]byte
		binary.LittleEndian.PutUint32(w[:], uint32(s))
		return w[i%4]
	}
	send, recv := int(a.SendBytes), int(a.RecvBytes)
	switch mode {
	case portstaged.PSReduceScatter:
		return sum(r*recv + i&^3)
	case portstaged.PSAllreduce:
		return sum(i &^ 3)
	case portstaged.PSReduce:
		if r == a.Root {
			return sum(i &^ 3)
		}
		if a.InPlace {
			return in(r, i)
		}
		return psPoison
	case portstaged.PSAlltoall:
		c := send / n
		return in(i/c, r*c+i%c)
	case portstaged.PSAlltoallv:
		total := algo.AlltoallvTotal(a, n)
		for q := 0; q < n; q++ {
			s := alltoallv.AlltoallvSegment(q, r, n, total)
			if i >= int(s.To) && i < int(s.To+s.Bytes) {
				return in(q, int(s.From)+i-int(s.To))
			}
		}
		t.Fatalf("alltoallv: byte %d of rank %d's output is in no segment", i, r)
	case portstaged.PSSendRecv:
		return in((r+n-1)%n, i)
	case portstaged.PSBroadcast:
		return in(a.Root, i)
	case portstaged.PSGather:
		if r == a.Root || (a.InPlace && i/send == r) {
			return in(i/send, i%send)
		}
		return psPoison
	case portstaged.PSScatter:
		return in(a.Root, r*recv+i)
	case portstaged.PSAllgather:
		return in(i/send, i%send)
	}
	return 0
}

// portStagedJob is one rank per entry of hosts on the stand-in, with the portput kernels,
// the pairs connected as mode says.
func portStagedJob(t *testing.T, hosts []string, bufBytes uint64, mode channels.Mode) []*collectives.Env {
	t.Helper()
	kernels := map[string]devicetest.Kernel{"port_staged": portStagedKernel(false)}
	addFamily(kernels, "port_staged_reduce", portStagedKernel(true))
	return standinJobMode(t, hosts, bufBytes, kernels, mode)
}

func TestPortStagedAcrossHostsOnStandin(t *testing.T) {
	// one rank per host, two per host, hosts of unequal rank counts (no hypercube on 3)
	layouts := [][]string{{"h0", "h1"}, {"h0", "h0", "h1", "h1"}, {"h0", "h1", "h0"}}
	// halves of 16 KiB: the launches switch between the scratch's halves and its big
	// region (with credits) within the sweep, both ways.
	for _, half := range []uint64{portstaged.PortStagedHalfBytes, 16 << 10} {
		for _, hosts := range layouts {
			t.Run(fmt.Sprintf("hosts %v, halves of %d bytes", hosts, half), func(t *testing.T) {
				defer func(old uint64) { portstaged.PortStagedHalfBytes = old }(portstaged.PortStagedHalfBytes)
				portstaged.PortStagedHalfBytes = half
				checkPortStaged(t, portStagedJob(t, hosts, 1<<20, channels.ModeAuto), len(hosts))
			})
		}
	}
	// one host under --transport ethernet: every pair over the network, none by CUDA IPC
	t.Run("one host of 3, every pair over Ethernet", func(t *testing.T) {
		envs := portStagedJob(t, []string{"h0", "h0", "h0"}, 1<<20, ethernet.Mode)
		if l := envs[0].Layout; len(l.Hosts) != 1 || l.HostIPC || !portstaged.AcrossNetwork(l) {
			t.Fatalf("layout %v: want one host without CUDA IPC", l)
		}
		checkPortStaged(t, envs, 3)
	})
}

// checkPortStaged runs checkStaged on every portput algorithm.
func checkPortStaged(t *testing.T, envs []*collectives.Env, n int) {
	t.Helper()
	checkStaged(t, envs, n, "portput", portstaged.Collectives())
}

// checkStaged sets up algorithm name (portput, hostput or railput) of every collective of
// uses on the ranks of envs (of a job of n ranks, whose other ranks run the same in other
// processes) and runs each (int32, sum for the reductions) at odd sizes, in and out of
// place, at offsets (some off 16-byte alignment, as -u), with the root moving from launch
// to launch, several launches per instance so that credits and semaphore counts carry
// over; it checks every byte of these ranks' outputs.
func checkStaged(t *testing.T, envs []*collectives.Env, n int, name string, uses []portstaged.Use) {
	t.Helper()
	checkStagedSizes(t, envs, n, name, uses, []int64{12, 100, 4004, 16388, 240012, 52})
}

// checkStagedSizes is checkStaged at the given sizes (bytes, in order).
func checkStagedSizes(t *testing.T, envs []*collectives.Env, n int, name string, uses []portstaged.Use, sizes []int64) {
	t.Helper()
	int32T, err := collectives.LookupDatatype("int32")
	if err != nil {
		t.Fatal(err)
	}
	for _, pc := range uses {
		if pc.Name == "hypercube" && n&(n-1) != 0 {
			continue
		}
		coll, err := collectives.Lookup(pc.Name)
		if err != nil {
			t.Fatal(err)
		}
		alg, err := collectives.Find(pc.Name, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := alg.Fits(envs[0].Layout); err != nil {
			t.Fatal(err)
		}
		insts := instancesOn(t, envs, alg)
		launch := 0
		for _, size := range sizes {
			if alg.Supports(size, n, int32T.Name) != nil {
				continue // above its largest on n ranks (reduce hostput's falls with the count)
			}
			c := coll.Counts(size, int32T, n)
			for _, inPlace := range []bool{false, true} {
				launch++
				op := collectives.OpNone
				if coll.HasOp() {
					op = collectives.OpSum
				}
				a := &collectives.LaunchArgs{Type: int32T, Op: op, Root: launch % n, Count: c.Send, Param: c.Param,
					SendBytes: uint64(c.Send) * 4, RecvBytes: uint64(c.Recv) * 4, InPlace: inPlace,
					SendInPlace: uint64(c.SendInPlace) * 4, RecvInPlace: uint64(c.RecvInPlace) * 4,
					Shift: uint64(launch)*256 + uint64(launch%4)*4}
				if harness.Empty(a) {
					continue
				}
				onAll(t, envs, func(e *collectives.Env) error {
					b := *a
					b.InOff, b.OutOff = b.InOffOf(e.Rank), b.OutOffOf(e.Rank)
					g := e.GPU.(*devicetest.GPU)
					all := bytesAt(g, uint64(e.Out.Ptrs[e.Rank]), e.OutBytes)
					for i := range all {
						all[i] = psPoison
					}
					in := bytesAt(g, uint64(e.InPtr(&b, e.Rank)), b.SendBytes)
					for i := range in {
						in[i] = psInByte(e.Rank, i, launch)
					}
					return insts[e.Rank].Launch(&b, 0)
				})
				for _, e := range envs {
					got := bytesAt(e.GPU.(*devicetest.GPU), uint64(e.OutPtr(a, e.Rank)), a.RecvBytes)
					for i, b := range got {
						if want := psWant(t, pc.Mode, a, e.Rank, n, i, launch); b != want {
							t.Fatalf("%s %s %d bytes (in place %v, root %d, offset %d) rank %d: output byte %d = %#x, want %#x",
								pc.Name, name, size, inPlace, a.Root, a.Shift, e.Rank, i, b, want)
						}
					}
				}
			}
		}
	}
}

// psReceive is the receiving half of a stand-in port_staged or host_staged launch once every
// peer's segment is in its slot (at slotPtr(sender)): the reduction in rank order (int32
// sum) where the launch reduces, else each peer's segment (my own from my input) copied to
// its place in out.
func psReceive(g *devicetest.GPU, mode portstaged.PortStagedMode, reduce bool, rank, root, n, unit, total, in, out uint64, slotPtr func(uint64) uint64) {
	if reduce {
		if mode == portstaged.PSReduceScatter || mode == portstaged.PSAllreduce || rank == root {
			mine := uint64(0)
			if mode == portstaged.PSReduceScatter {
				mine = rank * unit
			}
			res := bytesAt(g, out, unit)
			srcs := make([][]byte, n) // each source's whole unit, looked up once
			for r := range srcs {
				if uint64(r) == rank {
					srcs[r] = bytesAt(g, in+mine, unit)
				} else {
					srcs[r] = bytesAt(g, slotPtr(uint64(r)), unit)
				}
			}
			for k := uint64(0); k+4 <= unit; k += 4 {
				var sum int32
				for _, src := range srcs {
					sum += int32(binary.LittleEndian.Uint32(src[k:]))
				}
				binary.LittleEndian.PutUint32(res[k:], uint32(sum))
			}
		}
	} else {
		for q := uint64(0); q < n; q++ {
			off, bytes := psSendSeg(mode, q, rank, unit, total, root, n)
			if bytes == 0 {
				continue
			}
			src := slotPtr(q)
			if q == rank {
				src = in + off
			}
			if dst := out + psRecvOff(mode, q, rank, unit, total, n); src != dst {
				copy(bytesAt(g, dst, bytes), bytesAt(g, src, bytes))
			}
		}
	}
}
