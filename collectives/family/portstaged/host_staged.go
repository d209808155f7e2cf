package portstaged

import (
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// hostput of reducescatter, reduce, alltoall, alltoallv, sendrecv, broadcast, gather,
// scatter, hypercube and allreduce (each registers it from its folder, *_hostput.go;
// allreduce's is a one shot, PSAllreduce): portput's schedule for small messages
// through host-resident buffers, as allgather's hostput
// (host_staged.cu), for jobs where some pair talks over a network. The
// kernel copies the segment each network peer needs into my host-resident outbox and puts
// it, with a signal, into the peer's host-resident scratch; the receiver reads the slots
// from host memory. Over Ethernet no CUDA copy is then on the proxy's or the receiver's
// path. A peer on my host connected by CUDA IPC gets its segment written by the kernel
// straight into its GPU-memory scratch over NVLink, with a memory-channel signal, instead
// of a port channel's copy-engine put and proxy round trips. A launch waits only for the
// peers that send it bytes, and for the credit of the region it reuses (up to 8 regions
// for small segments), so that rooted collectives and rings pipeline across launches
// rather than meet every peer once per launch; a segment over 4 MiB goes in chunks that
// the receiver reads as they land. Automatic up to algo.HostStagedAutoMax, above portput's
// priority; it takes messages of up to algo.HostStagedMax (broadcast's to 64 MiB:
// broadcast.HostPutMax; all-gather's, all-to-all's, reduce-scatter's, gather's, scatter's,
// hypercube's and send-receive's to StreamedMax, automatic to there where no pair uses
// CUDA IPC and on hosts of two ranks (FewPerHost; send-receive's to 32 MiB but where no
// pair uses CUDA IPC and every rank has a GPU); reduce's, all-reduce's and all-to-all-v's
// on two ranks: WholeMax).

// HostStagedNumber is the hostput algorithms' number in every collective (allgather's
// hostput is #7 too) but allreduce, where RegisterHostAs gives it another.
const HostStagedNumber = 7

// hostUses are the collectives that registered a hostput, by name.
var hostUses = useSet{}

// RegisterHost gives collective its hostput algorithm (number HostStagedNumber), whose
// launches run the host_staged kernels in mode; doc is its line for help and reports.
// Each collective that has one calls it from its own folder's init. It panics on a
// collective registered twice, as collectives.Register does.
func RegisterHost(collective string, mode PortStagedMode, doc string) {
	RegisterHostAs(collective, mode, doc, nil)
}

// RegisterHostAs is RegisterHost for a collective whose hostput differs from the family's
// record in some field (its number, sizes or automatic choice): adjust, if not nil,
// changes the record before it is registered. The record's New is set after adjust, with
// host-resident slots for messages of up to the record's MaxBytes (which must be set: the
// slots' pinned memory grows with it, hostSegBytes). It panics where adjust left MaxBytes
// 0, as collectives.Register does on a duplicate.
func RegisterHostAs(collective string, mode PortStagedMode, doc string, adjust func(*collectives.Algorithm)) {
	a := &collectives.Algorithm{
		Collective: collective, Name: "hostput", Number: HostStagedNumber, Doc: doc, AnyOffset: true,
		MinRanks: 2, Needs: collectives.SomeNetwork, MaxBytes: algo.HostStagedMax,
		AutoMin: 0, AutoMax: algo.HostStagedAutoMax, AutoPriority: 12, AutoOn: AcrossNetwork,
	}
	if adjust != nil {
		adjust(a)
	}
	if a.MaxBytes <= 0 {
		panic(fmt.Sprintf("portstaged: %s hostput without a largest message", collective))
	}
	a.New = func(env *collectives.Env) (collectives.Instance, error) {
		h, err := newHostStaged(env, mode, false, hostSegBytes(mode, env.MaxBytes, a.Largest(env.NRanks), env.NRanks))
		if h == nil {
			return nil, err // not a nil *hostStaged in a non-nil Instance
		}
		return h, err
	}
	collectives.Register(a)
	hostUses[collective] = mode
}

// StreamedMax is the largest message the hostput of all-gather, all-to-all,
// reduce-scatter, gather, scatter, hypercube and send-receive takes (their folders'
// *_hostput.go say what was measured): a segment over 4 MiB goes in chunks that the
// receivers copy or reduce as they land (host_staged.cu, "Streaming"). Their slots hold a
// peer's segment, an nth of the message (PairBytes; send-receive's, the whole message, to
// one peer): an outbox and a scratch of two halves, each of at most a slot per peer (one
// in send-receive's outbox), at most 256 MiB of pinned host memory a rank at any -e, and
// the scratch's 128 MiB again in GPU memory where some pairs use CUDA IPC. The hostput of
// reduce, all-reduce and all-to-all-v takes as much only on two ranks (WholeMax): a
// segment of theirs can be the whole message, and their outbox or scratch keeps a slot for
// every peer.
const StreamedMax = 64 << 20

// WholeMax is the largest message the hostput of a mode whose segment is the whole
// message (reduce: every rank's to the root; all-reduce's one shot: to every rank;
// all-to-all-v: to the farthest peer) takes on nranks ranks: StreamedMax on two ranks, where it was measured (its outbox and scratch
// then hold two halves of three slots of the message: 384 MiB of pinned host memory a
// rank at -e 64M), algo.HostStagedMax on more, whose slots grow with the rank count and
// where it was not measured above 4 MiB.
func WholeMax(nranks int) int64 {
	if nranks == 2 {
		return StreamedMax
	}
	return algo.HostStagedMax
}

// StreamedWhole is RegisterHostAs's adjust for a hostput whose segment is the whole
// message: messages to WholeMax on the job's rank count, automatic to there where no pair
// uses CUDA IPC (StreamedAuto; above 4 MiB a launch is streamed, as StreamedMax's).
func StreamedWhole(a *collectives.Algorithm) {
	Streamed(StreamedMax)(a)
	a.MaxBytesOn = WholeMax
}

// Streamed is RegisterHostAs's adjust for a hostput that takes messages to StreamedMax,
// automatic to autoMax where no pair uses CUDA IPC (StreamedAuto).
func Streamed(autoMax int64) func(*collectives.Algorithm) {
	return func(a *collectives.Algorithm) { a.MaxBytes, a.AutoSizes = StreamedMax, StreamedAuto(autoMax) }
}

// StreamedAuto is the -k auto range of a hostput that takes messages to StreamedMax: to
// limit where no pair of the job uses CUDA IPC (one rank a host, measured against portput)
// or on hosts of at most two ranks with a GPU each (FewPerHost), to algo.HostStagedAutoMax
// on the other layouts, where portput, railput and the hierarchical algorithms keep the
// larger messages (hostput was not measured against them there above 4 MiB). A collective
// whose own algorithm comes first by AutoPriority (allgather's hier) keeps its sizes.
func StreamedAuto(limit int64) func(collectives.Layout) (min, max int64) {
	return func(l collectives.Layout) (int64, int64) {
		if l.NetworkOnly() || FewPerHost(l) {
			return 0, limit
		}
		return 0, algo.HostStagedAutoMax
	}
}

// FewPerHost says every host of layout l has at most two ranks and no GPU serves several
// (Layout.SharedGPU): where the streamed hostput is automatic above 4 MiB although the
// ranks of a host use CUDA IPC. On 4×H200 as 2 simulated hosts of 2 ranks, a GPU each,
// 2026-11-29, -k hostput and -k auto (portput) alternating, -b 4M -e 64M -f 2 -n 10 -w 3,
// two rounds (docs/performance.md, "Every collective on 2 hosts of 2 on 4×H200, builds
// 88d2182 and cb6fa62"), hostput took less time at every size from 8 to 64 MiB in both
// rounds out of place in gather (16 MiB 275-322 µs against 837-908), scatter (64 MiB
// 1242-1261 against 1279-1736), reducescatter (16 MiB 1248-1439 against 1538-2005) and
// alltoall (16 MiB 1428-1449 against 1737-2277), and in place in all but one of those
// cells (reducescatter 8 MiB 1114 against 1022 once); in hypercube in 14 of 16 cells with
// in place (64 MiB 5442 and 6246 against 6343 and 5888), in send-receive to 32 MiB out of
// place (its own bound).
func FewPerHost(l collectives.Layout) bool {
	return !l.SharedGPU && l.MostOnAHost() <= 2
}

// HostCollectives lists the collectives that registered a hostput, by name.
func HostCollectives() []Use { return hostUses.sorted() }

// OutboxSlots is how many slots each half of a rank's outbox holds (host_staged.cu's
// boxSlots), under rail routing if rail: one where every peer gets the same segment of my
// input, and for send-receive's one receiver but under rail routing (whose outbox holds a
// bundle for each host); else one per peer.
func (m PortStagedMode) OutboxSlots(nranks int, rail bool) int {
	if m == PSBroadcast || m == PSAllgather || m == PSAllreduce || m == PSSendRecv && !rail {
		return 1
	}
	return nranks - 1
}

// hostStaged is one rank's hostput instance of one collective.
type hostStaged struct {
	*algo.Base
	modeKernels[HostStagedArgs]
	algo.HostScatter
	parts  device.Ptr // partsBytes in device memory (HostStagedArgs.Parts)
	ranks  device.Ptr // railput: the rank table (HostStagedArgs.Ranks); 0: hostput
	nlocal uint32
}

// partsBytes is the size of the kernel's parts table (host_staged.cu's HostStaged::parts):
// nine uint32 (the last launch to write each eighth of the buffers, this launch's region)
// and a word of padding, then a uint64 per peer (its signal count as last read), then two
// uint64 (the chunks of a streamed launch that have landed, and that block 0 has copied).
func partsBytes(nranks int) uint64 { return 10*4 + 8*uint64(nranks-1) + 16 }

// hostDepth is the regions a launch whose largest segment is slot bytes cuts the buffers
// into (host_staged.cu's depth): 8 where a slot of an eighth of the buffers holds it, so
// that small launches pipeline up to 7 deep, else 2.
func hostDepth(slot, slotBytes uint64) uint32 {
	if slot <= slotBytes/4 {
		return 8
	}
	return 2
}

// hostSegBytes is the rank-pair segment hostput's slots are sized for in mode on nranks
// ranks, in a run whose largest message is maxBytes, for an algorithm that takes messages
// of up to limit bytes (> 0): four times that message's largest segment (PairBytes), at
// most the segment of a message of limit bytes (and never less than the segment of a
// message up to limit). The run's largest launches then get 8 regions too (hostDepth)
// wherever the pinned memory stays within what a run to limit takes, so that a size's
// time does not depend on -e.
func hostSegBytes(mode PortStagedMode, maxBytes, limit int64, nranks int) uint64 {
	seg := func(bytes uint64) uint64 { return mode.PairBytes(bytes, nranks) }
	return min(4*seg(algo.Limit(limit, maxBytes)), seg(uint64(limit))) // never under the segment: the message is at most limit
}

// PairBytes is, rounded up to 16 bytes, the most that a rank sends one peer in a launch of
// mode whose message (the size column) is bytes on nranks ranks (UnitSlot's slot): an
// nth of it where every rank gets an nth of the message (all-gather, gather, all-to-all,
// reduce-scatter, scatter), all of it otherwise (all-to-all-v, whose farthest peer gets
// the most, is bounded by the message).
func (m PortStagedMode) PairBytes(bytes uint64, nranks int) uint64 {
	switch m {
	case PSAllgather, PSGather, PSAlltoall, PSReduceScatter, PSScatter:
		bytes = (bytes + uint64(nranks) - 1) / uint64(nranks)
	}
	return algo.RoundUp(bytes, 16)
}

// NewHostStaged sets collective mode's hostput up on env: host-resident slots for
// messages of up to algo.HostStagedMax (or the run's largest, if smaller), whose largest
// rank-pair segment is at most the message.
func NewHostStaged(env *collectives.Env, mode PortStagedMode) (collectives.Instance, error) {
	a, err := newHostStaged(env, mode, false, 0)
	if a == nil {
		return nil, err // not a nil *hostStaged in a non-nil Instance
	}
	return a, err
}

// newHostStaged sets hostput up, or railput where rail is set, with host-resident slots
// for rank-pair segments of up to segBytes (0: hostSegBytes for algo.HostStagedMax).
func newHostStaged(env *collectives.Env, mode PortStagedMode, rail bool, segBytes uint64) (*hostStaged, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &hostStaged{Base: b}
	if a.modeKernels, err = loadModeKernels(env.GPU, mode, HostStaged, HostStagedReduce); err != nil {
		return nil, err
	}
	if segBytes == 0 {
		segBytes = hostSegBytes(mode, env.MaxBytes, algo.HostStagedMax, env.NRanks)
	}
	slot := algo.RoundUp(max(segBytes, 16), 256)
	if rail {
		a.HostScatter, err = algo.NewRailSlots(b, slot, mode.OutboxSlots(env.NRanks, true), env.NRanks)
	} else {
		a.HostScatter, err = algo.NewHostSlots(b, slot, mode.OutboxSlots(env.NRanks, false), int(mode.Slots(env.NRanks)))
	}
	if err != nil {
		return nil, err
	}
	a.parts, err = env.Mesh.Alloc(partsBytes(env.NRanks))
	return a, err
}

func (a *hostStaged) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	return a.launchOn(l, a.Env.InPtr(l, a.Env.Rank), a.Env.OutPtr(l, a.Env.Rank), s)
}

// launchOn launches on my input in and my output out.
func (a *hostStaged) launchOn(l *collectives.LaunchArgs, in, out device.Ptr, s device.Stream) error {
	e := a.Env
	unit, slot, total := a.mode.UnitSlot(l, e.NRanks)
	if slot > a.SlotBytes {
		return fmt.Errorf("a %d-byte segment exceeds the %d-byte host-resident slot set up for %d bytes", slot, a.SlotBytes, e.MaxBytes)
	}
	k, work, err := a.pick(l, e.Rank)
	if err != nil {
		return err
	}
	return k.Launch(device.Dim{Grid: a.Blocks(work, 64<<10), Block: 1024}, s, &HostStagedArgs{
		Chans: a.Chans, MemChans: a.MemChans, Outbox: a.Outbox, Scratch: a.Scratch, Local: a.Local, SlotBytes: a.SlotBytes,
		In: in, Out: out, Unit: unit, Total: total,
		Mode: uint32(a.mode), Root: uint32(l.Root), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks),
		Depth: hostDepth(slot, a.SlotBytes), State: a.State, Parts: a.parts, Ranks: a.ranks, NLocal: a.nlocal,
		Progress: a.Progress,
	})
}
