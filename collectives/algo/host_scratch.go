package algo

import (
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// HostScatter is what the host-resident algorithms (allreduce hostoneshot, allgather
// hostput) set up alike: a host-resident outbox of two halves of slotBytes, a
// host-resident scratch of two halves of nranks slots (both channels.Mesh.ShareHost), and
// port channels from my outbox into every peer's scratch, with host tokens for the network
// peers (every peer: the algorithms need the NoIPC layout). Over Ethernet the proxy then
// sends straight from my outbox and the peer's receiver reads straight into its scratch.
type HostScatter struct {
	Outbox, Scratch device.Ptr
	SlotBytes       uint64
	Chans           device.Ptr // PortChannelHandle[npeers]
}

// NewHostScatter makes the host-resident outbox and scratch of slotBytes slots and the
// port channels between them.
func NewHostScatter(b *Base, slotBytes uint64) (HostScatter, error) {
	return NewHostSlots(b, slotBytes, 1, b.Env.NRanks)
}

// NewHostSlots is NewHostScatter with an outbox of two halves of outboxSlots slots and a
// scratch of two halves of scratchSlots slots (the port-staged family's hostput: one
// outbox slot per peer, one scratch slot per sender).
func NewHostSlots(b *Base, slotBytes uint64, outboxSlots, scratchSlots int) (HostScatter, error) {
	h := HostScatter{SlotBytes: slotBytes}
	e := b.Env
	box := 2 * uint64(outboxSlots) * slotBytes
	outbox, err := e.Mesh.ShareHost(box)
	if err != nil {
		return h, err
	}
	scratch, err := e.Mesh.ShareHost(2 * uint64(scratchSlots) * slotBytes)
	if err != nil {
		return h, err
	}
	h.Outbox, h.Scratch = outbox.Ptrs[e.Rank], scratch.Ptrs[e.Rank]
	h.Chans, err = b.PortChannelSets(1, scratch, h.Outbox, box, channels.NetworkHostTokens)
	return h, err
}

// The largest messages the host-resident algorithms take, and auto picks them for: every
// size they take. allreduce's scratch holds two halves of a whole message per rank (2 x
// nranks x 1 MiB of pinned host memory at most), allgather's two halves of one gathered
// message. Measured on 2xH200 as 2 simulated hosts, 2026-11-23 (docs/performance.md).
const (
	HostAllreduceMax = 1 << 20
	HostAllgatherMax = 4 << 20
)

// The port-staged family's hostput (collectives/family/portstaged): the largest message
// (the size column) it takes, and the largest -k auto picks it for, so that no rank-pair
// message it sends is larger. Measured on 2xH100 as 2 simulated hosts, 2026-11-25
// (docs/algorithms.md#crossovers): at 256 KiB-4 MiB hostput took 1.02-3.34x less time than
// portput in all nine collectives, and less at 16 MiB in all but sendrecv (0.95x); the
// bound stops at 4 MiB, as allgather's, because its pinned host memory grows with it.
const (
	HostStagedMax     = 4 << 20
	HostStagedAutoMax = HostStagedMax
)
