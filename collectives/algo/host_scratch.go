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
	h := HostScatter{SlotBytes: slotBytes}
	e := b.Env
	outbox, err := e.Mesh.ShareHost(2 * slotBytes)
	if err != nil {
		return h, err
	}
	scratch, err := e.Mesh.ShareHost(2 * uint64(e.NRanks) * slotBytes)
	if err != nil {
		return h, err
	}
	h.Outbox, h.Scratch = outbox.Ptrs[e.Rank], scratch.Ptrs[e.Rank]
	h.Chans, err = b.PortChannelSets(1, scratch, h.Outbox, 2*slotBytes, channels.NetworkHostTokens)
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
