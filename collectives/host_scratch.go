package collectives

import (
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// hostScatter is what the host-resident algorithms (allreduce hostoneshot, allgather
// hostput) set up alike: a host-resident outbox of two halves of slotBytes, a
// host-resident scratch of two halves of nranks slots (both channels.Mesh.ShareHost), and
// port channels from my outbox into every peer's scratch, with host tokens for the network
// peers (every peer: the algorithms need the NoIPC layout). Over Ethernet the proxy then
// sends straight from my outbox and the peer's receiver reads straight into its scratch.
type hostScatter struct {
	outbox, scratch device.Ptr
	slotBytes       uint64
	chans           device.Ptr // PortChannelHandle[npeers]
}

func newHostScatter(b *base, slotBytes uint64) (hostScatter, error) {
	h := hostScatter{slotBytes: slotBytes}
	e := b.env
	outbox, err := e.Mesh.ShareHost(2 * slotBytes)
	if err != nil {
		return h, err
	}
	scratch, err := e.Mesh.ShareHost(2 * uint64(e.NRanks) * slotBytes)
	if err != nil {
		return h, err
	}
	h.outbox, h.scratch = outbox.Ptrs[e.Rank], scratch.Ptrs[e.Rank]
	h.chans, err = b.portChannelSets(1, scratch, h.outbox, 2*slotBytes, channels.NetworkHostTokens)
	return h, err
}

// The largest messages the host-resident algorithms take, and auto picks them for: every
// size they take. allreduce's scratch holds two halves of a whole message per rank (2 x
// nranks x 1 MiB of pinned host memory at most), allgather's two halves of one gathered
// message. Measured on 2xH200 as 2 simulated hosts, 2026-11-23 (docs/performance.md).
const (
	hostAllreduceMax = 1 << 20
	hostAllgatherMax = 4 << 20
)
