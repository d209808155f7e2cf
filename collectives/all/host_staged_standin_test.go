package all

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
	"github.com/mscclpp-bench/mscclpp-bench/harness"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
)

// The hostput algorithms of the port-staged family end to end on the CPU, as
// port_staged_standin_test.go runs portput: ranks on simulated hosts, Ethernet over
// loopback, the real proxy, and a Go transcription of host_staged.cu's host_staged and
// host_staged_reduce (one block; int32 sum) that pushes the same triggers and counts the
// same signals. The outbox and the scratch are host-resident, so the proxy sends from
// host memory and the receivers read into it.

// hostStagedChunk is host_staged.cu's hsChunk: the most bytes of a segment put at once.
const hostStagedChunk = 4 << 20

// hostStagedKernel: (chans, mems, outbox, scratch, local, slotBytes, in, out, unit, total,
// mode, root, rank, nranks, depth, state, parts, ranks, nlocal, progress; ranks set:
// railput, hostRailLaunch); reduce: the host_staged_reduce family
// (int32 sum). A peer whose memory-channel entry has a remote address (CUDA IPC, on my
// host) gets its segment written straight into its local scratch and a memory-channel
// signal; the others a put from my outbox (in rounds of a chunk, as the kernel puts a
// segment over hsChunk, each chunk but the last signalled on the progress channel). It
// takes the region whose eighths of the
// buffers were written longest ago and, before writing it, waits until every peer has
// started the launch after the last one that wrote them; it waits for this launch's
// signal only from the peers that send it bytes, round by round as the kernel's streamed
// launches do (a network peer's chunk r in round r, by its progress count or, with its
// last, its launch signal; a CUDA IPC peer's segment in the last round), though it reads
// the slots only after the last round. hostStagedReadDelay, if set, runs before a rank
// reads its slots.
func hostStagedKernel(reduce bool) devicetest.Kernel {
	return func(g *devicetest.GPU, a []uint64) error {
		if a[17] != 0 {
			return hostRailLaunch(g, a, reduce)
		}
		outbox, scratch, local, slot, in, out, unit, total := a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]
		mode, root, rank, n, depth := portstaged.PortStagedMode(a[10]), a[11], a[12], a[13], a[14]
		st := launchState(g, a[15])
		chans := ports(g, a[0], int(n-1))
		var memChans []devMem
		if a[1] != 0 {
			memChans = mems(g, a[1], int(n-1))
		}
		isLocal := func(i uint64) bool { return memChans != nil && memChans[i].h.Remote != 0 }
		var progress []devPort
		if a[19] != 0 {
			progress = ports(g, a[19], int(n-1))
		}
		flag := uint64(st.Launches) + 1
		stride := 2 * slot / depth
		r, last := hostClaim(g, a[16], depth, flag)
		if last != 0 && !hostStagedNoCredit {
			for i, c := range chans {
				if err := awaitPeer(g, a[16], i, c, last+2-flag); err != nil {
					return err
				}
			}
		}
		boxSlots := uint64(mode.OutboxSlots(int(n), false))
		sameToAll := mode == portstaged.PSBroadcast || mode == portstaged.PSAllgather || mode == portstaged.PSAllreduce
		// boxPeer: the peer whose segment outbox slot k holds (send-receive's one slot: the
		// next rank's)
		boxPeer := func(k uint64) uint64 {
			if mode != portstaged.PSSendRecv {
				return k
			}
			if to := (rank + 1) % n; to > rank {
				return to - 1
			}
			return 0 // the last rank's next is rank 0
		}
		box := r * boxSlots * stride
		slots := mode.Slots(int(n))
		region := r * slots * stride
		slotAt := func(from uint64) uint64 {
			if slots == 1 {
				return region
			}
			return region + from*stride
		}
		// my segments into my outbox (one slot for all where every peer gets the same),
		// chunk by chunk where the longest is over hostStagedChunk, each chunk put once
		// copied, the signal with a segment's last; the CUDA IPC peers' straight into their
		// scratch with the last round, then their signal (an empty segment: a signal alone
		// in the first round)
		seg := func(i uint64) (off, bytes uint64) { return psSendSeg(mode, rank, other(i, rank), unit, total, root, n) }
		longest := uint64(0)
		for k := uint64(0); k < boxSlots; k++ {
			if i := boxPeer(k); sameToAll || !isLocal(i) {
				_, bytes := seg(i)
				longest = max(longest, bytes)
			}
		}
		rounds := max(1, (longest+hostStagedChunk-1)/hostStagedChunk)
		for r := uint64(0); r < rounds; r++ {
			at, last := r*hostStagedChunk, r == rounds-1
			for k := uint64(0); k < boxSlots; k++ {
				if off, bytes := seg(boxPeer(k)); (sameToAll || !isLocal(boxPeer(k))) && at < bytes {
					size := min(hostStagedChunk, bytes-at)
					copy(bytesAt(g, outbox+box+k*stride+at, size), bytesAt(g, in+off+at, size))
				}
			}
			for i := uint64(0); i < n-1 && last; i++ {
				if off, bytes := seg(i); isLocal(i) {
					copy(bytesAt(g, memChans[i].h.Remote+slotAt(rank), bytes), bytesAt(g, in+off, bytes))
				}
			}
			for i, c := range chans {
				_, bytes := seg(uint64(i))
				src := box + at
				if boxSlots > 1 {
					src += uint64(i) * stride
				}
				var err error
				switch {
				case isLocal(uint64(i)):
					if last {
						memChans[i].signal()
					}
				case bytes == 0 && r == 0:
					_, err = c.push(channels.TriggerFlag, 0, 0, 0)
				case at < bytes && bytes-at <= hostStagedChunk:
					_, err = c.push(channels.TriggerData|channels.TriggerFlag, slotAt(rank)+at, src, bytes-at)
				case at < bytes && progress != nil:
					_, err = progress[i].push(channels.TriggerData|channels.TriggerFlag, slotAt(rank)+at, src, hostStagedChunk)
				case at < bytes:
					_, err = c.push(channels.TriggerData, slotAt(rank)+at, src, hostStagedChunk)
				}
				if err != nil {
					return err
				}
			}
		}
		// this launch's signal of the peers that send me bytes (a CUDA IPC peer's entry in
		// chans carries its memory channel's semaphore), round by round where streamed
		recvBytes := func(i int) uint64 {
			_, bytes := psSendSeg(mode, other(uint64(i), rank), rank, unit, total, root, n)
			return bytes
		}
		chunks := func(i int) uint64 { return (recvBytes(i) + hostStagedChunk - 1) / hostStagedChunk }
		peerIndex := func(q uint64) uint64 {
			if q > rank {
				return q - 1
			}
			return q
		}
		slotPtr := func(q uint64) uint64 {
			if q != rank && isLocal(peerIndex(q)) {
				return local + slotAt(q)
			}
			return scratch + slotAt(q)
		}
		// streamed, as HostStaged::streamed for the stand-in's one block: some network peer
		// sends me a segment of several chunks, and the rounds can be told apart
		streamed := func() bool {
			if progress == nil || in == out && mode == portstaged.PSAlltoallv {
				return false
			}
			several := false
			for i := range chans {
				if isLocal(uint64(i)) {
					if reduce && recvBytes(i) > 0 {
						return false
					}
				} else if chunks(i) > 1 {
					several = true
				}
			}
			return several
		}
		stream := streamed()
		recvRounds := uint64(1)
		for i := range chans {
			if stream && !isLocal(uint64(i)) {
				recvRounds = max(recvRounds, chunks(i))
			}
		}
		for r := uint64(0); r < recvRounds; r++ {
			for i, c := range chans {
				var err error
				switch k := chunks(i); {
				case k == 0:
				case recvRounds == 1 || isLocal(uint64(i)) && r == recvRounds-1 || !isLocal(uint64(i)) && r+1 == k:
					err = awaitPeer(g, a[16], i, c, 1)
				case !isLocal(uint64(i)) && r+1 < k:
					err = progress[i].waitCount(r + 1)
				}
				if err != nil {
					return err
				}
			}
			if r == 0 && hostStagedReadDelay != nil {
				hostStagedReadDelay(rank, root, flag, func(q uint64) uint64 {
					if q > rank {
						q--
					}
					return atomic.LoadUint64(word(g, chans[q].h.Sem.Inbound))
				})
			}
			if stream && !reduce {
				// what round r brought, as copyStreamed copies it
				for q := uint64(0); q < n; q++ {
					off, bytes := psSendSeg(mode, q, rank, unit, total, root, n)
					dst, src, lo, hi := out+psRecvOff(mode, q, rank, unit, total, n), slotPtr(q), uint64(0), bytes
					switch {
					case q == rank:
						src = in + off
						if r != 0 || src == dst {
							continue
						}
					case isLocal(peerIndex(q)):
						if r != recvRounds-1 {
							continue
						}
					default:
						lo = min(r*hostStagedChunk, bytes)
						hi = min(lo+hostStagedChunk, bytes)
					}
					copy(bytesAt(g, dst+lo, hi-lo), bytesAt(g, src+lo, hi-lo))
				}
			}
		}
		if !stream || reduce {
			psReceive(g, mode, reduce, rank, root, n, unit, total, in, out, slotPtr)
		}
		for i, c := range progress {
			if k := chunks(i); !isLocal(uint64(i)) && k > 1 {
				c.advance(k - 1)
			}
		}
		hostFinish(chans, st)
		return nil
	}
}

// awaitPeer is HostStaged::awaitPeer: peer i's signal count (on channel c) has reached my
// expected count plus n, by the count last read (kept after the parts table at p) or by
// reading it again.
func awaitPeer(g *devicetest.GPU, p uint64, i int, c devPort, n uint64) error {
	last := word(g, p+40+8*uint64(i))
	if *last >= *word(g, c.h.Sem.Expected)+n {
		return nil
	}
	if err := c.waitCount(n); err != nil {
		return err
	}
	*last = atomic.LoadUint64(word(g, c.h.Sem.Inbound))
	return nil
}

// hostClaim is HostStaged::claim: the region (of depth) whose eighths of the buffers were
// written longest ago, by the parts table at p, marked as written by launch flag, and the
// last launch that wrote any of its eighths. The stand-in needs no parts[8]: one block.
func hostClaim(g *devicetest.GPU, p, depth, flag uint64) (region, last uint64) {
	parts := bytesAt(g, p, 9*4)
	part := func(e uint64) uint64 { return uint64(binary.LittleEndian.Uint32(parts[4*e:])) }
	per, last := 8/depth, uint64(1<<32)
	for q := uint64(0); q < depth; q++ {
		m := uint64(0)
		for e := q * per; e < (q+1)*per; e++ {
			m = max(m, part(e))
		}
		if m < last {
			region, last = q, m
		}
	}
	for e := region * per; e < (region+1)*per; e++ {
		binary.LittleEndian.PutUint32(parts[4*e:], uint32(flag))
	}
	return region, last
}

// Test hooks of the stand-in hostput kernel: a delay before a rank reads its slots (given
// the launch's root and flag and the signal count of each peer), and the credit wait left
// out (a mutation a test must catch).
var (
	hostStagedReadDelay func(rank, root, flag uint64, count func(peer uint64) uint64)
	hostStagedNoCredit  bool
)

// hostStagedKernels are the stand-in's hostput kernels, with portput's beside them.
func hostStagedKernels() map[string]devicetest.Kernel {
	kernels := map[string]devicetest.Kernel{"port_staged": portStagedKernel(false), "host_staged": hostStagedKernel(false)}
	addFamily(kernels, "port_staged_reduce", portStagedKernel(true))
	addFamily(kernels, "host_staged_reduce", hostStagedKernel(true))
	return kernels
}

// networkOnlyJobs are the stand-in jobs where no pair uses CUDA IPC: 2 and 3 simulated
// hosts of one rank each, and one host of 3 ranks under --transport ethernet.
var networkOnlyJobs = []struct {
	hosts []string
	mode  channels.Mode
}{
	{[]string{"h0", "h1"}, channels.ModeAuto},
	{[]string{"h0", "h1", "h2"}, channels.ModeAuto},
	{[]string{"h0", "h0", "h0"}, ethernet.Mode},
}

// TestHostStagedAcrossHostsOnStandin: every collective's hostput on 2 and 3 simulated
// hosts of one rank each, and on one host of 3 ranks under --transport ethernet, every
// byte of every output checked at odd sizes, in and out of place, the root moving,
// several launches per instance (both halves, counts carried over).
func TestHostStagedAcrossHostsOnStandin(t *testing.T) {
	for _, tc := range networkOnlyJobs {
		t.Run(fmt.Sprintf("hosts %v, %v", tc.hosts, tc.mode), func(t *testing.T) {
			envs := standinJobMode(t, tc.hosts, 1<<20, hostStagedKernels(), tc.mode)
			if !envs[0].Layout.NetworkOnly() {
				t.Fatalf("layout %v: want no pair over CUDA IPC", envs[0].Layout)
			}
			checkStaged(t, envs, len(tc.hosts), "hostput", portstaged.HostCollectives())
		})
	}
}

// TestHostStagedChunksOnStandin: the hostputs that take messages over 4 MiB (broadcast's,
// all-gather's, all-to-all's, reduce-scatter's, gather's, scatter's, hypercube's,
// send-receive's, whose one outbox slot holds the next rank's segment, and on two ranks
// reduce's, whose root reduces the peer's whole message, and all-reduce's one shot, whose
// every rank does) on 2 simulated
// hosts of one rank and on 2 hosts of 2 (a peer over CUDA IPC beside the network one,
// send-receive's next rank on the same host or not): segments over
// hostStagedChunk go as several puts, each but the last signalled on the progress channel
// and the launch's signal with the last, the receivers copy each chunk once its round has
// landed (a reduction after the last round), and every byte of every output is checked, in
// and out of place, the root moving (a progress count not advanced at the launch's end
// lets the next launch copy chunks before they land: caught). The sizes give segments of
// several chunks, of one chunk and a few bytes, and of exactly one chunk on either layout.
func TestHostStagedChunksOnStandin(t *testing.T) {
	uses := []portstaged.Use{
		{Name: "broadcast", Mode: portstaged.PSBroadcast}, {Name: "allgather", Mode: portstaged.PSAllgather},
		{Name: "alltoall", Mode: portstaged.PSAlltoall}, {Name: "reducescatter", Mode: portstaged.PSReduceScatter},
		{Name: "gather", Mode: portstaged.PSGather}, {Name: "scatter", Mode: portstaged.PSScatter},
		{Name: "hypercube", Mode: portstaged.PSAllgather}, {Name: "sendrecv", Mode: portstaged.PSSendRecv},
		{Name: "reduce", Mode: portstaged.PSReduce}, {Name: "allreduce", Mode: portstaged.PSAllreduce},
		{Name: "alltoallv", Mode: portstaged.PSAlltoallv},
	}
	for _, tc := range []struct {
		hosts []string
		sizes []int64
	}{
		{[]string{"h0", "h1"}, []int64{9<<20 + 16, 8 << 20, 4<<20 + 4, 4 << 20, 100}},
		{[]string{"a", "a", "b", "b"}, []int64{18<<20 + 32, 16 << 20, 4<<20 + 4, 100}},
	} {
		t.Run(fmt.Sprintf("hosts %v", tc.hosts), func(t *testing.T) {
			envs := standinJob(t, tc.hosts, 20<<20, hostStagedKernels())
			checkStagedSizes(t, envs, len(tc.hosts), "hostput", uses, tc.sizes)
		})
	}
}

// TestHostStagedMixedLayoutsOnStandin: every collective's hostput where some hosts have
// several ranks connected by the stand-in's CUDA IPC (hosts of 2 and 1 ranks, and 2 hosts
// of 2): the peers of a rank's host through its GPU-memory scratch, the others through
// host-resident buffers over Ethernet; every byte checked as above.
func TestHostStagedMixedLayoutsOnStandin(t *testing.T) {
	for _, hosts := range [][]string{{"a", "a", "b"}, {"a", "a", "b", "b"}} {
		t.Run(fmt.Sprintf("hosts %v", hosts), func(t *testing.T) {
			envs := standinJob(t, hosts, 1<<20, hostStagedKernels())
			if l := envs[0].Layout; !l.HostIPC || l.NetworkOnly() {
				t.Fatalf("layout %v: want CUDA IPC inside each host", l)
			}
			checkStaged(t, envs, len(hosts), "hostput", portstaged.HostCollectives())
		})
	}
}

// TestHostStagedRefusesOneHost: where every pair is connected by CUDA IPC (one host), no
// pair talks over a network: hostput does not fit (the run refuses it before the header),
// and its set-up fails with an error naming CUDA IPC rather than sharing host memory no
// peer could reach.
func TestHostStagedRefusesOneHost(t *testing.T) {
	envs := standinJob(t, []string{"a", "a"}, 1<<16, hostStagedKernels())
	for _, pc := range portstaged.HostCollectives() {
		a, err := collectives.Find(pc.Name, "hostput")
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Fits(envs[0].Layout); err == nil || !strings.Contains(err.Error(), "network") {
			t.Errorf("%s hostput on %v: Fits says %v, want a refusal naming the network", pc.Name, envs[0].Layout, err)
		}
	}
	onAll(t, envs, func(e *collectives.Env) error {
		_, err := portstaged.NewHostStaged(e, portstaged.PSAlltoall)
		if err == nil || !strings.Contains(err.Error(), "CUDA IPC") {
			return fmt.Errorf("set-up on rank %d: %v, want an error naming CUDA IPC", e.Rank, err)
		}
		return nil
	})
}

// TestHostStagedRunsAheadOnStandin: launches of hostput that do not wait for every peer
// let the others run ahead of a slow rank (rank 1 sleeps before it reads its slots), so
// each rank runs its launches back to back, with no step in between, into buffers of their
// own: 10 small launches of one root (the 8 regions come round again) and then roots
// moving, small launches (8 regions) and two large ones (2 regions) mixed. Every output
// byte is checked afterwards. With the credit wait left out, the root overwrites slots the
// slow rank has not read yet, and the test must see it (hostStagedNoCredit): there rank 1
// holds its first launch's read until the root's signal of launch 9 (its region is the
// first's again) has arrived.
func TestHostStagedRunsAheadOnStandin(t *testing.T) {
	hostStagedReadDelay = func(rank, root, flag uint64, count func(uint64) uint64) {
		if rank == 1 {
			time.Sleep(2 * time.Millisecond)
		}
	}
	t.Cleanup(func() { hostStagedReadDelay = nil })
	uses := map[string]portstaged.Use{}
	for _, pc := range portstaged.HostCollectives() {
		uses[pc.Name] = pc
	}
	for _, hosts := range [][]string{{"a", "b"}, {"a", "a", "b", "b"}} {
		envs := standinJob(t, hosts, 8<<20, hostStagedKernels())
		for _, e := range envs {
			e.MaxBytes = 512 << 10 // slots of 512 KiB: 8 regions up to 128 KiB segments
		}
		for _, name := range []string{"broadcast", "sendrecv", "alltoall", "reduce", "gather"} {
			t.Run(fmt.Sprintf("%s on hosts %v", name, hosts), func(t *testing.T) {
				if bad := runAhead(t, envs, uses[name], "hostput"); bad != "" {
					t.Fatal(bad)
				}
			})
		}
		t.Run(fmt.Sprintf("no credit on hosts %v", hosts), func(t *testing.T) {
			noCreditCaught(t, envs, uses["broadcast"], "hostput")
		})
	}
}

// noCreditCaught runs collective pc's algorithm name as runAhead does with the credit wait
// left out (hostStagedNoCredit) and rank 1 holding its first launch's read until rank 0's
// signal of launch 9 (whose region is the first's again) has arrived; it fails t unless
// runAhead finds a wrong byte.
func noCreditCaught(t *testing.T, envs []*collectives.Env, pc portstaged.Use, name string) {
	t.Helper()
	hostStagedNoCredit = true
	slow := hostStagedReadDelay
	hostStagedReadDelay = func(rank, root, flag uint64, count func(uint64) uint64) {
		if rank != 1 || root != 0 || flag != 1 {
			return
		}
		for deadline := time.Now().Add(10 * time.Second); count(0) < flag+8 && time.Now().Before(deadline); {
			time.Sleep(50 * time.Microsecond)
		}
	}
	defer func() { hostStagedNoCredit, hostStagedReadDelay = false, slow }()
	if runAhead(t, envs, pc, name) == "" {
		t.Fatalf("%s %s without its credit wait passed: the test cannot see an overwritten slot", pc.Name, name)
	}
}

// runAhead runs collective pc's algorithm name (hostput or railput) as
// TestHostStagedRunsAheadOnStandin says and returns the first wrong output byte it finds
// ("" for none).
func runAhead(t *testing.T, envs []*collectives.Env, pc portstaged.Use, name string) string {
	t.Helper()
	n := len(envs)
	int32T, err := collectives.LookupDatatype("int32")
	if err != nil {
		t.Fatal(err)
	}
	coll, err := collectives.Lookup(pc.Name)
	if err != nil {
		t.Fatal(err)
	}
	alg, err := collectives.Find(pc.Name, name)
	if err != nil {
		t.Fatal(err)
	}
	insts := instancesOn(t, envs, alg)
	op := collectives.OpNone
	if coll.HasOp() {
		op = collectives.OpSum
	}
	args := func(size int64, root int, inPlace bool, shift uint64) *collectives.LaunchArgs {
		c := coll.Counts(size, int32T, n)
		return &collectives.LaunchArgs{Type: int32T, Op: op, Root: root, Count: c.Send, Param: c.Param,
			SendBytes: uint64(c.Send) * 4, RecvBytes: uint64(c.Recv) * 4, InPlace: inPlace,
			SendInPlace: uint64(c.SendInPlace) * 4, RecvInPlace: uint64(c.RecvInPlace) * 4, Shift: shift}
	}
	// a large launch: its largest segment above a quarter of the 512 KiB slots (2 regions)
	large := int64(0)
	for _, size := range []int64{160 << 10, int64(n) * 160 << 10} {
		if _, slot, _ := pc.Mode.UnitSlot(args(size, 0, false, 0), n); slot > 128<<10 && slot <= 512<<10 {
			large = size
			break
		}
	}
	if large == 0 {
		t.Fatalf("%s: no large size found", pc.Name)
	}
	type launch struct {
		args *collectives.LaunchArgs
		id   int
	}
	var launches []launch
	shift := uint64(0)
	for k := 0; k < 22; k++ {
		size, root := int64(1000+k*44), 0
		if k >= 10 {
			root = k % n
		}
		if k == 12 || k == 17 {
			size = large
		}
		a := args(size, root, k%3 == 1, shift)
		shift += algo.RoundUp(uint64(n)*max(a.SendBytes, a.RecvBytes), 256)
		if !harness.Empty(a) {
			launches = append(launches, launch{a, k + 1})
		}
	}
	if shift > envs[0].OutBytes {
		t.Fatalf("%d bytes of launches, %d-byte buffers", shift, envs[0].OutBytes)
	}
	onAll(t, envs, func(e *collectives.Env) error {
		g := e.GPU.(*devicetest.GPU)
		for _, buf := range [][]byte{bytesAt(g, uint64(e.In.Ptrs[e.Rank]), e.InBytes), bytesAt(g, uint64(e.Out.Ptrs[e.Rank]), e.OutBytes)} {
			for i := range buf {
				buf[i] = psPoison
			}
		}
		for _, l := range launches {
			in := bytesAt(g, uint64(e.InPtr(l.args, e.Rank)), l.args.SendBytes)
			for i := range in {
				in[i] = psInByte(e.Rank, i, l.id)
			}
		}
		for _, l := range launches {
			b := *l.args
			b.InOff, b.OutOff = b.InOffOf(e.Rank), b.OutOffOf(e.Rank)
			if err := insts[e.Rank].Launch(&b, 0); err != nil {
				return err
			}
		}
		return nil
	})
	for _, l := range launches {
		for _, e := range envs {
			got := bytesAt(e.GPU.(*devicetest.GPU), uint64(e.OutPtr(l.args, e.Rank)), l.args.RecvBytes)
			for i, b := range got {
				if want := psWant(t, pc.Mode, l.args, e.Rank, n, i, l.id); b != want {
					return fmt.Sprintf("%s %s launch %d (%d bytes, root %d, in place %v) rank %d: output byte %d = %#x, want %#x",
						pc.Name, name, l.id, l.args.RecvBytes, l.args.Root, l.args.InPlace, e.Rank, i, b, want)
				}
			}
		}
	}
	return ""
}
