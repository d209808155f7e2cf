package portstaged

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// portput of reducescatter, reduce, alltoall, alltoallv, sendrecv, broadcast, gather,
// scatter and hypercube (each registers it from its folder, *_portput.go): port channels
// only, so any layout of hosts (port_staged.cu). Each rank puts, over the pair's connection (copy engine inside
// a host, Ethernet or InfiniBand between hosts), the one segment of its input that each
// peer needs into that peer's scratch, with a signal; once every peer's segment is there,
// the GPU copies (reduce-scatter and reduce: reduces) the slots into the output. Every pair
// exchanges one signal and one credit per launch, so the same schedule serves any root.
// Automatic wherever the one-host algorithms do not fit (across hosts, or a network
// transport inside one), so the choices on one host stay as they were. hypercube's
// portput delivers the hypercube's result (an all-gather) in one step rather than log2(n).

// PortStagedMode is the collective a port_staged or host_staged launch runs
// (port_staged_device.cuh's PS_* values).
type PortStagedMode uint32

// The modes: the collective each runs, in port_staged_device.cuh's order.
const (
	PSReduceScatter PortStagedMode = iota
	PSReduce
	PSAlltoall
	PSAlltoallv
	PSSendRecv
	PSBroadcast
	PSGather
	PSScatter
	PSAllgather
	// PSAllreduce is all-reduce's hostput only: my whole input to every peer, every rank
	// reduces all of them (one shot).
	PSAllreduce
)

// PortStagedNumber is the portput algorithms' number in every collective (allgather's and
// allreduce's port-only algorithms are #5 too).
const PortStagedNumber = 5

// Use is one collective's portput: its name and the mode its launches run.
type Use struct {
	Name string
	Mode PortStagedMode
}

// useSet maps the collectives that registered one of the family's algorithms to their
// modes.
type useSet map[string]PortStagedMode

// sorted lists the set by collective name.
func (u useSet) sorted() []Use {
	out := make([]Use, 0, len(u))
	for name, mode := range u {
		out = append(out, Use{name, mode})
	}
	slices.SortFunc(out, func(a, b Use) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// uses are the collectives that registered a portput, by name.
var uses = useSet{}

// Register gives collective its portput algorithm (number PortStagedNumber), whose
// launches run the port_staged kernel in mode; doc is its line for help and reports. Each
// collective that has one calls it from its own folder's init. It panics on a collective
// registered twice, as collectives.Register does.
func Register(collective string, mode PortStagedMode, doc string) {
	collectives.Register(&collectives.Algorithm{
		Collective: collective, Name: "portput", Number: PortStagedNumber, Doc: doc, AnyOffset: true,
		MinRanks: 2, Needs: collectives.AnyLayout,
		AutoMin: 0, AutoMax: 1 << 62, AutoPriority: 20, AutoOn: AcrossNetwork,
		New: func(env *collectives.Env) (collectives.Instance, error) { return newPortAny(env, mode) },
	})
	uses[collective] = mode
}

// Collectives lists the collectives that registered a portput, by name.
func Collectives() []Use { return uses.sorted() }

// AcrossNetwork says some pair of ranks is not connected by CUDA IPC (several hosts, or a
// network transport inside one): where the one-host algorithms do not run.
func AcrossNetwork(l collectives.Layout) bool { return l.AcrossNetwork() }

// PortStagedHalfBytes is the largest region (slots x slot bytes) that goes through the
// scratch's halves, without waiting for the peers' credits (a variable so that tests can
// mix both kinds of launch at small sizes).
var PortStagedHalfBytes uint64 = 1 << 20

// portAny is one rank's portput instance of one collective: the scratch (a big region and
// two halves) and port channels into every peer's copy of it.
type portAny struct {
	*algo.Base
	modeKernels[PortStagedArgs]
	algo.PortScatter // one slot: the big region, then two halves; fromIn carries every signal
	big, half        uint64
}

// Slots is how many senders' slots a launch's region holds (port_staged_device.cuh's
// slotsOf): one where a single rank sends to each.
func (m PortStagedMode) Slots(nranks int) uint64 {
	switch m {
	case PSSendRecv, PSBroadcast, PSScatter:
		return 1
	}
	return uint64(nranks)
}

// regionFactor bounds a region by the largest message: slots x slot <= factor x bytes.
func (m PortStagedMode) regionFactor(nranks int) uint64 {
	switch m {
	case PSReduce, PSAllreduce:
		return uint64(nranks) // every rank's whole buffer reaches the root (all-reduce: every rank)
	case PSAlltoallv:
		return 2 // the longest segment is 2/n of the total
	}
	return 1
}

// BigBytes is the big region's size for messages of up to maxBytes on nranks ranks: the
// largest region, with room for every slot's rounding to 16 bytes.
func (m PortStagedMode) BigBytes(maxBytes int64, nranks int) uint64 {
	return algo.RoundUp(uint64(max(maxBytes, 16))*m.regionFactor(nranks)+16*uint64(nranks), 256)
}

func newPortAny(env *collectives.Env, mode PortStagedMode) (collectives.Instance, error) {
	b, err := algo.NewBase(env)
	if err != nil {
		return nil, err
	}
	a := &portAny{Base: b}
	if a.modeKernels, err = loadModeKernels(env.GPU, mode, PortStaged, PortStagedReduce); err != nil {
		return nil, err
	}
	big := mode.BigBytes(env.MaxBytes, env.NRanks)
	a.half = min(big, PortStagedHalfBytes)
	a.PortScatter, err = algo.NewPortScatter(b, big+2*a.half, 1, channels.NetworkHostTokens)
	a.big = big
	return a, err
}

// UnitSlot returns launch l's per-rank bytes on n ranks (port_staged.cu's unit),
// the largest segment a rank sends one peer rounded up to 16 bytes (the slot), and
// alltoallv's total.
func (m PortStagedMode) UnitSlot(l *collectives.LaunchArgs, n int) (unit, slot, total uint64) {
	switch m {
	case PSGather, PSAllgather:
		unit = l.SendBytes
	case PSAlltoall:
		unit = l.SendBytes / uint64(n)
	case PSAlltoallv:
		total = uint64(algo.AlltoallvTotal(l, n))
		// the farthest peer's segment is the longest
		return 0, algo.RoundUp(uint64(algo.AlltoallvPeerBytes(0, n-1, n, int64(total))), 16), total
	default: // reducescatter, reduce, sendrecv, broadcast, scatter, allreduce
		unit = l.RecvBytes
	}
	return unit, algo.RoundUp(unit, 16), 0
}

func (a *portAny) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.Env
	unit, slot, total := a.mode.UnitSlot(l, e.NRanks)
	if need := a.mode.Slots(e.NRanks) * slot; need > a.big {
		return fmt.Errorf("%d bytes of slots exceed the %d-byte scratch set up for %d bytes", need, a.big, e.MaxBytes)
	}
	// blocks: enough for the bytes this rank copies or reduces into its output
	k, work, err := a.pick(l, e.Rank)
	if err != nil {
		return err
	}
	return k.Launch(device.Dim{Grid: a.Blocks(work, 1<<20), Block: 1024}, s, &PortStagedArgs{
		Chans: a.From(l), SigChans: a.FromIn, Scratch: a.Scratch, BigBytes: a.big, HalfBytes: a.half, Slot: slot,
		In: e.InPtr(l, e.Rank), Out: e.OutPtr(l, e.Rank), SrcOff: l.InOff, Unit: unit, Total: total,
		Mode: uint32(a.mode), Root: uint32(l.Root), Rank: uint32(e.Rank), NRanks: uint32(e.NRanks), State: a.State,
	})
}
