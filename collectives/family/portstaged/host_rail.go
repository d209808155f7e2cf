package portstaged

import (
	"encoding/binary"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
)

// railput of the collectives that have a hostput (each registers it from its folder,
// *_railput.go): hostput with rail routing, for hosts of several ranks. A rank talks over
// the network only to its rail (the ranks of its local index on the other hosts): for
// each other host it puts one bundle, the segments of all that host's ranks, from its
// host-resident outbox into its rail peer's host-resident scratch (broadcast and
// all-gather: the one segment all get), and the rail peer forwards each segment over
// NVLink into its rank's GPU-memory scratch. Each pair of hosts then exchanges one message
// per rail and launch instead of one per pair of ranks (with 2 hosts of 8 ranks, 16
// network messages a launch instead of 128), and a segment crosses the network once per host, not
// once per rank. The kernel is hostput's (host_staged.cu, exchangeRail). Reduce-scatter
// and reduce reduce inside the host first (exchangeHostFirst): a host's ranks write their
// segments for a rail over NVLink to its rank there, which puts one partial result per
// other host, so the network carries a host's sum once instead of each rank's segment.

// RailNumber is the railput algorithms' number in every collective that has one but
// allreduce, where RegisterRailAs gives it another.
const RailNumber = 8

// RailAutoLocal is the fewest ranks per host for which -k auto takes railput over hostput
// where every rank has a GPU of its own (where ranks share GPUs, hosts of 2 and 3 take it
// too: RailAuto). Measured on 4×H100 as 2 simulated hosts, 2026-11-27 (docs/performance.md, "railput on
// hosts of several ranks"), 64 B to 1 MiB, two rounds: with 4 ranks a host (8 ranks, two
// a GPU under MPS) railput took less time than hostput in 72 of 74 cells of broadcast,
// gather, alltoall, sendrecv and reducescatter (up to 16 KiB 47-282 µs against 227-1069,
// one outlier aside); with 2 ranks a host (a GPU each) it took more time than hostput in
// 45 of 48 cells up to 64 KiB, up to 43 µs more (its NVLink forwarding is one more step
// on the path), less in 7 of 8 cells at 1 MiB. Three ranks a host were not measured with
// a GPU each. The hosts of 4 shared their GPUs there, so that hosts of 4 ranks with a GPU
// each take railput rests on that run and on the count of network messages it saves.
const RailAutoLocal = 4

// RailAuto says -k auto takes railput on layout l: hosts of RailAutoLocal ranks or more,
// or hosts of several ranks where some GPU serves several ranks (Layout.SharedGPU). On
// one H100 as 2 simulated hosts of 2 ranks under MPS (2026-11-27, docs/performance.md,
// "Every collective across two simulated hosts (one H100)"), -k auto before and after
// this, two rounds alternating, -b 64 -e 4M -f 4, railput took less time than hostput in
// 102 of 108 cells of alltoall, alltoallv, broadcast, gather, scatter and hypercube
// (alltoall 127-286 µs to 256 KiB against 348-500), and on hosts of 3 (6 ranks) in 29 of
// 32 cells of alltoall and broadcast and 15 of 16 of gather: the ranks' kernels and proxy and
// socket threads share the GPU and the CPUs, and railput has half the network peers
// (sendrecv and allreduce set their own sizes). Only where railput runs (Layout.Rails):
// the algorithms auto leaves for it are left only where it fits.
func RailAuto(l collectives.Layout) bool {
	return l.Rails() && (len(l.Hosts[0]) >= RailAutoLocal || l.SharedGPU)
}

// ManyPerHost says layout l has several hosts of RailAutoLocal ranks or more, of equal
// rank counts (Layout.Rails).
func ManyPerHost(l collectives.Layout) bool {
	return l.Rails() && len(l.Hosts[0]) >= RailAutoLocal
}

// railUses are the collectives that registered a railput, by name.
var railUses = useSet{}

// RegisterRail gives collective its railput algorithm (number RailNumber) in mode; doc is
// its line for help and reports. Each collective that has one calls it from its own
// folder's init; it panics on a collective registered twice.
func RegisterRail(collective string, mode PortStagedMode, doc string) {
	RegisterRailAs(collective, mode, doc, nil)
}

// RegisterRailAs is RegisterRail for a collective whose railput differs from the family's
// record in some field (its number, sizes or automatic choice): adjust, if not nil,
// changes the record before it is registered.
func RegisterRailAs(collective string, mode PortStagedMode, doc string, adjust func(*collectives.Algorithm)) {
	a := &collectives.Algorithm{
		Collective: collective, Name: "railput", Number: RailNumber, Doc: doc, AnyOffset: true,
		MinRanks: 4, Needs: collectives.Rails, MaxBytes: algo.HostStagedMax,
		AutoMin: 0, AutoMax: algo.HostStagedAutoMax, AutoPriority: 11, AutoOn: RailAuto,
		New: func(env *collectives.Env) (collectives.Instance, error) { return NewHostRail(env, mode) },
	}
	if adjust != nil {
		adjust(a)
	}
	collectives.Register(a)
	railUses[collective] = mode
}

// RailCollectives lists the collectives that registered a railput, by name.
func RailCollectives() []Use { return railUses.sorted() }

// NewHostRail sets collective mode's railput up on env, whose layout has several hosts of
// equal rank counts (collectives.Rails): hostput's buffers with a scratch slot per
// sender, port channels only along my rail, and the rank table the kernel routes by.
func NewHostRail(env *collectives.Env, mode PortStagedMode) (collectives.Instance, error) {
	a, err := newHostRail(env, mode)
	if a == nil {
		return nil, err
	}
	return a, err
}

// newHostRail is NewHostRail's instance.
func newHostRail(env *collectives.Env, mode PortStagedMode) (*hostStaged, error) {
	a, err := newHostStaged(env, mode, true, 0)
	if err != nil {
		return nil, err
	}
	a.nlocal = uint32(len(env.Layout.Hosts[0]))
	a.ranks, err = env.Mesh.Upload(railTable(env.Layout))
	return a, err
}

// railTable is HostStagedArgs.Ranks of layout l: uint32 rank at host*nlocal+local, then
// each rank's host*nlocal+local.
func railTable(l collectives.Layout) []byte {
	n := l.NRanks()
	pos := make([]uint32, n)
	b := make([]byte, 0, 8*n)
	i := uint32(0)
	for _, rs := range l.Hosts {
		for _, r := range rs {
			b = binary.LittleEndian.AppendUint32(b, uint32(r))
			pos[r] = i
			i++
		}
	}
	for _, p := range pos {
		b = binary.LittleEndian.AppendUint32(b, p)
	}
	return b
}
