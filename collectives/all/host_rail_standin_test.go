package all

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
)

// railput (hostput with rail routing) on the CPU: the stand-in hostput kernel with a rank
// table runs this Go transcription of host_staged.cu's exchangeRail (exchangeHostFirst
// for reduce-scatter and reduce), which pushes the same triggers, makes the same copies
// and counts the same signals (one block; int32 sum).

// hostRailLaunch is one stand-in railput launch (hostStagedKernel's arguments).
func hostRailLaunch(g *devicetest.GPU, a []uint64, reduce bool) error {
	outbox, scratch, local, slot, in, out, unit, total := a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]
	mode, root, rank, n, depth := portstaged.PortStagedMode(a[10]), a[11], a[12], a[13], a[14]
	st := launchState(g, a[15])
	table, nlocal := bytesAt(g, a[17], 8*n), a[18]
	at := func(i uint64) uint64 { return uint64(binary.LittleEndian.Uint32(table[4*i:])) }
	hostOf := func(r uint64) uint64 { return at(n+r) / nlocal }
	localOf := func(r uint64) uint64 { return at(n+r) % nlocal }
	rankAt := func(h, j uint64) uint64 { return at(h*nlocal + j) }
	peerIndex := func(r uint64) uint64 {
		if r > rank {
			return r - 1
		}
		return r
	}
	chans := ports(g, a[0], int(n-1))
	memChans := mems(g, a[1], int(n-1))
	isLocal := func(i uint64) bool { return memChans[i].h.Remote != 0 }
	linked := func(i uint64) bool { return isLocal(i) || localOf(other(i, rank)) == localOf(rank) }
	myHost, nhosts := hostOf(rank), n/nlocal
	sameToAll := mode.OutboxSlots(int(n), true) == 1
	seg := func(from, to uint64) (uint64, uint64) { return psSendSeg(mode, from, to, unit, total, root, n) }
	// packed: where host h's rank of local index j is in from's bundle for host h; j =
	// nlocal: the bundle's bytes
	packed := func(from, h, j uint64) uint64 {
		if sameToAll {
			if j < nlocal {
				return 0
			}
			_, b := seg(from, rankAt(h, 0))
			return b
		}
		off := uint64(0)
		for k := uint64(0); k < j; k++ {
			_, b := seg(from, rankAt(h, k))
			off += (b + 15) &^ 15
		}
		return off
	}

	flag := uint64(st.Launches) + 1
	stride := 2 * slot / depth
	r, last := hostClaim(g, a[16], depth, flag)
	if last != 0 && !hostStagedNoCredit {
		for i, c := range chans {
			if linked(uint64(i)) {
				if err := awaitPeer(g, a[16], i, c, last+2-flag); err != nil {
					return err
				}
			}
		}
	}
	box := r * uint64(mode.OutboxSlots(int(n), true)) * stride
	region := r * n * stride
	slotAt := func(from uint64) uint64 { return region + from*stride }
	railSlot := func(h uint64) uint64 { return region + h*nlocal*stride }
	bundle := func(h uint64) uint64 {
		if sameToAll {
			return box
		}
		k := h
		if h > myHost {
			k--
		}
		return box + k*nlocal*stride
	}
	if reduce && (mode == portstaged.PSReduceScatter || mode == portstaged.PSReduce) {
		return hostFirstLaunch(g, a, hostFirstArgs{
			chans: chans, memChans: memChans, region: region, stride: stride,
			hostOf: hostOf, localOf: localOf, rankAt: rankAt, bundle: bundle,
		})
	}
	// a bundle for each other host into my outbox; my host's ranks' segments straight
	// into their local
	for h := uint64(0); h < nhosts; h++ {
		if h == myHost {
			continue
		}
		for j := uint64(0); j < nlocal; j++ {
			off, bytes := seg(rank, rankAt(h, j))
			copy(bytesAt(g, outbox+bundle(h)+packed(rank, h, j), bytes), bytesAt(g, in+off, bytes))
		}
	}
	for i := uint64(0); i < n-1; i++ {
		if isLocal(i) {
			off, bytes := seg(rank, other(i, rank))
			copy(bytesAt(g, memChans[i].h.Remote+slotAt(rank), bytes), bytesAt(g, in+off, bytes))
		}
	}
	for i, c := range chans {
		if isLocal(uint64(i)) || !linked(uint64(i)) {
			continue
		}
		h := hostOf(other(uint64(i), rank))
		typ := uint32(channels.TriggerFlag)
		if packed(rank, h, nlocal) > 0 {
			typ |= channels.TriggerData
		}
		if _, err := c.push(typ, railSlot(myHost), bundle(h), packed(rank, h, nlocal)); err != nil {
			return err
		}
	}
	// my rail's bundles, then what they carry for my host's other ranks
	for i, c := range chans {
		if p := other(uint64(i), rank); !isLocal(uint64(i)) && linked(uint64(i)) && packed(p, myHost, nlocal) > 0 {
			if err := awaitPeer(g, a[16], i, c, 1); err != nil {
				return err
			}
		}
	}
	for h := uint64(0); h < nhosts; h++ {
		if h == myHost {
			continue
		}
		from := rankAt(h, localOf(rank))
		for j := uint64(0); j < nlocal; j++ {
			to := rankAt(myHost, j)
			_, bytes := seg(from, to)
			if to == rank || bytes == 0 || hostRailNoForward {
				continue
			}
			dst := memChans[peerIndex(to)].h.Remote + slotAt(from)
			copy(bytesAt(g, dst, bytes), bytesAt(g, scratch+railSlot(h)+packed(from, myHost, j), bytes))
		}
	}
	for i := range chans {
		if isLocal(uint64(i)) {
			memChans[i].signal()
		}
	}
	// the linked peers that send me bytes, directly or forwarded
	for i, c := range chans {
		p := other(uint64(i), rank)
		if !linked(uint64(i)) {
			continue
		}
		wait := false
		if isLocal(uint64(i)) {
			_, b := seg(p, rank)
			wait = b > 0
			for h := uint64(0); h < nhosts; h++ {
				if _, b := seg(rankAt(h, localOf(p)), rank); h != myHost && b > 0 {
					wait = true
				}
			}
		} else {
			wait = packed(p, myHost, nlocal) > 0
		}
		if wait {
			if err := awaitPeer(g, a[16], i, c, 1); err != nil {
				return err
			}
		}
	}
	if hostStagedReadDelay != nil {
		hostStagedReadDelay(rank, root, flag, func(q uint64) uint64 {
			return atomic.LoadUint64(word(g, chans[peerIndex(q)].h.Sem.Inbound))
		})
	}
	// my rail's segments from my scratch; my host's ranks' and the forwarded from local
	psReceive(g, mode, reduce, rank, root, n, unit, total, in, out, func(q uint64) uint64 {
		if hostOf(q) != myHost && localOf(q) == localOf(rank) {
			return scratch + railSlot(hostOf(q)) + packed(q, myHost, localOf(rank))
		}
		return local + slotAt(q)
	})
	for i, c := range chans {
		if linked(uint64(i)) {
			c.advance(1)
		}
	}
	st.Launches++
	return nil
}

// hostRailNoForward leaves the forwarding out of the stand-in railput (a mutation a test
// must catch).
var hostRailNoForward bool

// TestHostRailOnStandin: every collective's railput on 2 hosts of 2 ranks and on 2 hosts
// of 3 ranks whose ranks alternate (the stand-in's CUDA IPC inside a host, Ethernet
// between), every byte of every output checked at odd sizes, in and out of place, the
// root moving.
func TestHostRailOnStandin(t *testing.T) {
	for _, hosts := range [][]string{{"a", "a", "b", "b"}, {"a", "b", "a", "b", "a", "b"}} {
		t.Run(fmt.Sprintf("hosts %v", hosts), func(t *testing.T) {
			envs := standinJob(t, hosts, 1<<20, hostStagedKernels())
			checkStaged(t, envs, len(hosts), "railput", portstaged.RailCollectives())
		})
	}
}

// TestAllreduceRailRSAGOnStandin: allreduce railrsag (railput's reduce-scatter, then its
// all-gather) on 2 hosts of 2 ranks and on 2 hosts of 3 whose ranks alternate, at counts
// that split into equal chunks (16-byte aligned or not) and at counts that do not (railput's
// one shot), in and out of place, every byte checked.
func TestAllreduceRailRSAGOnStandin(t *testing.T) {
	for _, hosts := range [][]string{{"a", "a", "b", "b"}, {"a", "b", "a", "b", "a", "b"}} {
		t.Run(fmt.Sprintf("hosts %v", hosts), func(t *testing.T) {
			envs := standinJob(t, hosts, 1<<20, hostStagedKernels())
			checkStagedRSAG(t, envs, len(hosts), "railrsag")
		})
	}
}

// TestAllreduceHostRSAGOnStandin: allreduce hostrsag (hostput's reduce-scatter, then its
// all-gather) on 2 hosts of one rank, on 3, and on 2 hosts of 2 ranks (NVLink inside a
// host), at counts that split into equal chunks (16-byte aligned or not) and at counts
// that do not (hostput's one shot), in and out of place, every byte checked.
func TestAllreduceHostRSAGOnStandin(t *testing.T) {
	for _, hosts := range [][]string{{"a", "b"}, {"a", "b", "c"}, {"a", "a", "b", "b"}} {
		t.Run(fmt.Sprintf("hosts %v", hosts), func(t *testing.T) {
			envs := standinJob(t, hosts, 1<<20, hostStagedKernels())
			// the last size's chunks come within 4 KiB of the slots hostrsag's stages set up
			// for a rank count's share of the largest message (the environment's, 1 MiB)
			checkStagedRSAG(t, envs, len(hosts), "hostrsag", 1<<20-8192)
		})
	}
}

// TestAllreduceHostRSAGLargeOnStandin: allreduce hostrsag above hostput's one shot (4
// MiB) on 2 hosts of one rank and on 3: chunks over hostput's 4 MiB put (received in
// rounds), and counts that do not split into equal chunks, whose largest multiple of the
// rank count goes through the two stages and the elements left through the one shot, in
// and out of place, every byte checked.
func TestAllreduceHostRSAGLargeOnStandin(t *testing.T) {
	for _, hosts := range [][]string{{"a", "b"}, {"a", "b", "c"}} {
		t.Run(fmt.Sprintf("hosts %v", hosts), func(t *testing.T) {
			envs := standinJob(t, hosts, 10<<20, hostStagedKernels())
			uses := []portstaged.Use{{Name: "allreduce", Mode: portstaged.PSAllreduce}}
			checkStagedSizes(t, envs, len(hosts), "hostrsag", uses, []int64{9<<20 + 8, 9<<20 + 4, 4<<20 + 4})
		})
	}
}

// checkStagedRSAG runs allreduce's hostrsag or railrsag (name) on the ranks of envs (of a
// job of n ranks) at counts that split into equal chunks, 16-byte aligned or not, and at
// counts that do not, and at the sizes in more, every byte checked (checkStaged).
func checkStagedRSAG(t *testing.T, envs []*collectives.Env, n int, name string, more ...int64) {
	t.Helper()
	uses := []portstaged.Use{{Name: "allreduce", Mode: portstaged.PSAllreduce}}
	checkStagedSizes(t, envs, n, name, uses, append([]int64{96, 48000, 100, 96, 240000}, more...))
}

// TestHostRailRunsAheadOnStandin is TestHostStagedRunsAheadOnStandin for railput on 2
// hosts of 2 ranks: 22 launches back to back per rank, rank 1 slow to read, roots moving,
// small and large launches mixed, every byte checked. Three mutations must fail it: the
// forwarding left out (the ranks whose data comes through their rail peer get nothing),
// reduce-scatter's partial left out (the other host's contributions are missing), and
// the credit wait left out (rank 1 holds its first launch's read until rank 0's
// signal of launch 9 has arrived).
func TestHostRailRunsAheadOnStandin(t *testing.T) {
	hostStagedReadDelay = func(rank, root, flag uint64, count func(uint64) uint64) {
		if rank == 1 {
			time.Sleep(2 * time.Millisecond)
		}
	}
	t.Cleanup(func() { hostStagedReadDelay = nil })
	uses := map[string]portstaged.Use{}
	for _, pc := range portstaged.RailCollectives() {
		uses[pc.Name] = pc
	}
	envs := standinJob(t, []string{"a", "a", "b", "b"}, 8<<20, hostStagedKernels())
	for _, e := range envs {
		e.MaxBytes = 512 << 10
	}
	for _, name := range []string{"broadcast", "sendrecv", "alltoall", "reducescatter", "gather"} {
		t.Run(name, func(t *testing.T) {
			if bad := runAhead(t, envs, uses[name], "railput"); bad != "" {
				t.Fatal(bad)
			}
		})
	}
	t.Run("no forwarding", func(t *testing.T) {
		hostRailNoForward = true
		defer func() { hostRailNoForward = false }()
		if runAhead(t, envs, uses["alltoall"], "railput") == "" {
			t.Fatal("alltoall railput without forwarding passed")
		}
	})
	t.Run("no credit", func(t *testing.T) { noCreditCaught(t, envs, uses["broadcast"], "railput") })
	t.Run("no host partial", func(t *testing.T) {
		hostFirstNoPartial = true
		defer func() { hostFirstNoPartial = false }()
		if runAhead(t, envs, uses["reducescatter"], "railput") == "" {
			t.Fatal("reducescatter railput without its host's partial passed")
		}
	})
}

// hostFirstArgs is what hostRailLaunch has worked out of a launch that hostFirstLaunch
// finishes: the channels, this launch's region of scratch and local and its slots, the
// rank table and my outbox bundle for each host.
type hostFirstArgs struct {
	chans                   []devPort
	memChans                []devMem
	region, stride          uint64
	hostOf, localOf, bundle func(uint64) uint64
	rankAt                  func(h, j uint64) uint64
}

// hostFirstLaunch is host_staged.cu's exchangeHostFirst and reduceHostFirst, once the
// region is claimed and the credits waited for: my segment for each rank of a local
// peer's rail into my slot for its host in the peer's local, a signal to each local
// peer; the local peers' segments for my rail reduced, per other host, into my bundle
// for it, which goes to my rail peer there; then my host's segments for me and my rail's
// partials added up (int32 sum).
func hostFirstLaunch(g *devicetest.GPU, a []uint64, f hostFirstArgs) error {
	outbox, scratch, local, in, out, unit, total := a[2], a[3], a[4], a[6], a[7], a[8], a[9]
	mode, root, rank, n := portstaged.PortStagedMode(a[10]), a[11], a[12], a[13]
	st := launchState(g, a[15])
	nlocal := a[18]
	myHost, me, nhosts := f.hostOf(rank), f.localOf(rank), n/nlocal
	seg := func(from, to uint64) (uint64, uint64) { return psSendSeg(mode, from, to, unit, total, root, n) }
	isLocal := func(i uint64) bool { return f.memChans[i].h.Remote != 0 }
	railPeer := func(i uint64) bool { return !isLocal(i) && f.localOf(other(i, rank)) == me }
	partSlot := func(j, h uint64) uint64 { return f.region + (h*nlocal+j)*f.stride }
	railSlot := func(h uint64) uint64 { return f.region + h*nlocal*f.stride }

	for i := uint64(0); i < n-1; i++ {
		if !isLocal(i) {
			continue
		}
		k := f.localOf(other(i, rank))
		for h := uint64(0); h < nhosts; h++ {
			off, bytes := seg(rank, f.rankAt(h, k))
			copy(bytesAt(g, f.memChans[i].h.Remote+partSlot(me, h), bytes), bytesAt(g, in+off, bytes))
		}
	}
	toMyRail := false
	for h := uint64(0); h < nhosts; h++ {
		if _, b := seg(rank, f.rankAt(h, me)); b > 0 {
			toMyRail = true
		}
	}
	for i := range f.chans {
		if isLocal(uint64(i)) {
			f.memChans[i].signal()
		}
	}
	for i, c := range f.chans {
		if isLocal(uint64(i)) && toMyRail {
			if err := awaitPeer(g, a[16], i, c, 1); err != nil {
				return err
			}
		}
	}
	// my host's partial for my rail peer on each other host, put to it
	for i, c := range f.chans {
		if !railPeer(uint64(i)) {
			continue
		}
		h := f.hostOf(other(uint64(i), rank))
		off, bytes := seg(rank, f.rankAt(h, me))
		srcs := make([]uint64, nlocal)
		for j := range srcs {
			srcs[j] = local + partSlot(uint64(j), h)
		}
		srcs[me] = in + off
		if !hostFirstNoPartial {
			sumInt32(g, srcs, outbox+f.bundle(h), bytes)
		}
		typ := uint32(channels.TriggerFlag)
		if bytes > 0 {
			typ |= channels.TriggerData
		}
		if _, err := c.push(typ, railSlot(myHost), f.bundle(h), bytes); err != nil {
			return err
		}
	}
	// the partials of my rail
	if _, b := seg(rank, rank); b > 0 {
		for i, c := range f.chans {
			if railPeer(uint64(i)) {
				if err := awaitPeer(g, a[16], i, c, 1); err != nil {
					return err
				}
			}
		}
	}
	if hostStagedReadDelay != nil {
		hostStagedReadDelay(rank, root, uint64(st.Launches)+1, func(q uint64) uint64 {
			if q > rank {
				q--
			}
			return atomic.LoadUint64(word(g, f.chans[q].h.Sem.Inbound))
		})
	}
	if mode == portstaged.PSReduceScatter || rank == root {
		mine, _ := seg(rank, rank)
		var srcs []uint64
		for j := uint64(0); j < nlocal; j++ {
			srcs = append(srcs, local+partSlot(j, myHost))
		}
		srcs[me] = in + mine
		for h := uint64(0); h < nhosts; h++ {
			if h != myHost {
				srcs = append(srcs, scratch+railSlot(h))
			}
		}
		sumInt32(g, srcs, out, unit)
	}
	for i, c := range f.chans {
		if isLocal(uint64(i)) || railPeer(uint64(i)) {
			c.advance(1)
		}
	}
	st.Launches++
	return nil
}

// hostFirstNoPartial leaves the host's partial out of the stand-in railput's reductions
// (a mutation a test must catch).
var hostFirstNoPartial bool
