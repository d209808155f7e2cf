package algo

import (
	"fmt"
	"slices"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// HostScatter is what the host-resident algorithms (allreduce hostoneshot, the port-staged
// family's hostput) set up alike: a host-resident outbox of two halves of slotBytes, a
// host-resident scratch of two halves of nranks slots (both channels.Mesh.ShareHost), and
// port channels from my outbox into every network peer's scratch, with host tokens. Over Ethernet the proxy then sends straight from my outbox and
// the peer's receiver reads straight into its scratch. Where some pairs use CUDA IPC
// (NewHostSlots only), those peers are served through GPU memory instead (Local,
// MemChans).
type HostScatter struct {
	Outbox, Scratch device.Ptr
	SlotBytes       uint64
	Chans           device.Ptr // PortChannelHandle[npeers]
	// Local and MemChans serve the peers connected by CUDA IPC (NewHostSlots, where the
	// job has such pairs; else 0): Local is a scratch in GPU memory laid out as Scratch,
	// which those peers write over NVLink, and MemChans (MemoryChannelHandle[npeers], in
	// Peers order, zero for a network peer) are the memory channels into their Local.
	Local, MemChans device.Ptr
	// Progress (NewHostSlots only; else 0), PortChannelHandle[npeers] in Peers order, is a
	// second port channel to each network peer, between the same buffers over the same
	// connection as Chans, whose own semaphore counts the chunks of a long segment that
	// have landed (the port-staged family's hostput streams them, host_staged.cu). A CUDA
	// IPC peer's entry names no port channel and a semaphore of zeros, never signalled.
	Progress device.Ptr
}

// NewHostScatter makes the host-resident outbox and scratch of slots that hold largest
// bytes (a one shot's largest segment; at least 16, rounded up to 256 so that every slot
// starts 16-byte aligned) and the port channels between them. Its kernels reach every
// peer over a port channel, so every rank refuses alike (the layout is the job's) where
// some pair uses CUDA IPC.
func NewHostScatter(b *Base, largest uint64) (HostScatter, error) {
	if l := b.Env.Layout; !l.NetworkOnly() {
		return HostScatter{}, fmt.Errorf("rank %d: host-resident buffers with a port channel to every peer need %s; this job has %v", b.Env.Rank, collectives.NoIPC, l)
	}
	return newHostSlots(b, RoundUp(max(largest, 16), 256), 1, b.Env.NRanks, nil, false)
}

// NewHostSlots is NewHostScatter with an outbox of two halves of outboxSlots slots and a
// scratch of two halves of scratchSlots slots (the port-staged family's hostput: one
// outbox slot per peer, one scratch slot per sender; its kernels cut each buffer into 2 or
// 8 regions of as many smaller slots, host_staged.cu), and the Progress channels.
func NewHostSlots(b *Base, slotBytes uint64, outboxSlots, scratchSlots int) (HostScatter, error) {
	return newHostSlots(b, slotBytes, outboxSlots, scratchSlots, nil, true)
}

// newHostSlots is NewHostSlots, with port channels only to the network peers in rail
// where rail is not nil (NewRailSlots), and Progress only where progress is set.
func newHostSlots(b *Base, slotBytes uint64, outboxSlots, scratchSlots int, rail []int, progress bool) (HostScatter, error) {
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
	if e.Layout.NetworkOnly() && rail == nil {
		h.Chans, err = b.PortChannelSets(1, scratch, h.Outbox, box, channels.NetworkHostTokens)
		if err == nil && progress {
			h.Progress, err = b.PortChannelSets(1, scratch, h.Outbox, box, channels.NetworkHostTokens)
		}
		return h, err
	}
	if err := h.serveLocal(b, scratch, box, 2*uint64(scratchSlots)*slotBytes, rail); err != nil {
		return h, err
	}
	if progress {
		h.Progress, err = progressTo(b, scratch, h.Outbox, box)
	}
	return h, err
}

// progressTo makes HostScatter.Progress where some pairs use CUDA IPC: a port channel to
// each network peer, an entry naming none with a semaphore of zeros for the others.
func progressTo(b *Base, scratch *channels.Buffer, outbox device.Ptr, box uint64) (device.Ptr, error) {
	e := b.Env
	ports, err := e.Mesh.PortChannelsTo(networkPeers(e, nil), scratch, outbox, box, channels.NetworkHostTokens)
	if err != nil {
		return 0, err
	}
	zero, err := zeroSemaphore(e)
	if err != nil {
		return 0, err
	}
	chans := make([]channels.PortChannelHandle, 0, e.NRanks-1)
	for _, p := range e.Mesh.Peers() {
		if len(ports) > 0 && int(ports[0].Peer) == p {
			chans = append(chans, ports[0])
			ports = ports[1:]
			continue
		}
		chans = append(chans, placeholder(p, zero))
	}
	return e.Mesh.Upload(channels.HandlesBytes(chans))
}

// networkPeers lists my peers that do not use CUDA IPC, in the mesh's order (only those in
// rail where rail is not nil).
func networkPeers(e *collectives.Env, rail []int) []int {
	var network []int
	for _, p := range e.Mesh.Peers() {
		if !e.Mesh.PairTransport(e.Rank, p).Maps() && (rail == nil || slices.Contains(rail, p)) {
			network = append(network, p)
		}
	}
	return network
}

// zeroSemaphore allocates the semaphore of a placeholder entry that is never signalled:
// two words of zeros (inbound token and expected count).
func zeroSemaphore(e *collectives.Env) (channels.HostSemaphoreHandle, error) {
	zero, err := e.Mesh.Alloc(16)
	return channels.HostSemaphoreHandle{Inbound: uint64(zero), Expected: uint64(zero) + 8}, err
}

// placeholder is the Chans entry of peer p where no port channel goes: a FIFO id naming
// none (noPortChannel) and the semaphore sem.
func placeholder(p int, sem channels.HostSemaphoreHandle) channels.PortChannelHandle {
	return channels.PortChannelHandle{Sem: sem, ID: noPortChannel, Peer: uint32(p)}
}

// NewRailSlots is NewHostSlots for rail routing (the port-staged family's railput): port
// channels only to my rail (the ranks of my local index on the other hosts), memory
// channels to my host's other ranks, and for every other peer an entry in Chans whose
// semaphore stays at zero (the kernel neither signals nor waits for it). The layout must
// have hosts of equal rank counts, connected by CUDA IPC inside each.
func NewRailSlots(b *Base, slotBytes uint64, outboxSlots, scratchSlots int) (HostScatter, error) {
	l := b.Env.Layout
	_, local, _ := l.Local(b.Env.Rank)
	return newHostSlots(b, slotBytes, outboxSlots, scratchSlots, l.Rail(local), false) // my rail, me among it
}

// noPortChannel is the FIFO id in the entry of HostScatter.Chans of a CUDA IPC peer (or,
// under rail routing, of a network peer off my rail): it names no port channel, so a
// trigger pushed with it fails in the proxy instead of moving data.
const noPortChannel = 1<<16 - 1

// serveLocal makes, for a job where some pairs use CUDA IPC (several ranks on a host), the
// port channels to the network peers, a GPU-memory scratch of localBytes shared with the
// peers over CUDA IPC and memory channels into theirs. Chans gets an entry for every peer:
// a CUDA IPC peer's carries its memory channel's semaphore (inbound token and expected
// count), so that the kernel's gate and counts treat every peer alike. Where rail is not
// nil, only the network peers in it get port channels; the others get an entry whose
// semaphore is two words of zeros, never signalled. Every rank makes the same calls in
// the same order, whatever its peers.
func (h *HostScatter) serveLocal(b *Base, scratch *channels.Buffer, box, localBytes uint64, rail []int) error {
	e := b.Env
	var local []int
	for _, p := range e.Mesh.Peers() {
		if e.Mesh.PairTransport(e.Rank, p).Maps() {
			local = append(local, p)
		}
	}
	network := networkPeers(e, rail)
	ports, err := e.Mesh.PortChannelsTo(network, scratch, h.Outbox, box, channels.NetworkHostTokens)
	if err != nil {
		return err
	}
	var buf *channels.Buffer
	if h.Local, buf, err = b.ShareScratch(localBytes); err != nil {
		return err
	}
	mems, err := e.Mesh.MemoryChannelsTo(local, buf, h.Local)
	if err != nil {
		return err
	}
	// the semaphore of the peers neither in local nor in network
	var zero channels.HostSemaphoreHandle
	if len(local)+len(network) < e.NRanks-1 {
		if zero, err = zeroSemaphore(e); err != nil {
			return err
		}
	}
	chans := make([]channels.PortChannelHandle, 0, e.NRanks-1)
	memAll := make([]channels.MemoryChannelHandle, 0, cap(chans))
	for _, p := range e.Mesh.Peers() {
		if len(ports) == 0 || int(ports[0].Peer) != p {
			if len(mems) == 0 || int(mems[0].Peer) != p {
				chans = append(chans, placeholder(p, zero))
				memAll = append(memAll, channels.MemoryChannelHandle{Peer: uint32(p)})
				continue
			}
		}
		if len(mems) > 0 && int(mems[0].Peer) == p {
			m := mems[0]
			mems = mems[1:]
			chans = append(chans, placeholder(p, channels.HostSemaphoreHandle{Inbound: m.Sem.Inbound, Expected: m.Sem.Expected}))
			memAll = append(memAll, m)
			continue
		}
		chans = append(chans, ports[0])
		ports = ports[1:]
		memAll = append(memAll, channels.MemoryChannelHandle{Peer: uint32(p)})
	}
	if h.Chans, err = e.Mesh.Upload(channels.HandlesBytes(chans)); err != nil {
		return err
	}
	h.MemChans, err = e.Mesh.Upload(channels.HandlesBytes(memAll))
	return err
}

// HostAllreduceMax is the largest message allreduce hostoneshot takes, and auto picks it
// for: every size it takes. Its scratch holds two halves of a whole message per rank (2 x
// nranks x 1 MiB of pinned host memory at most). Measured on 2xH200 as 2 simulated hosts,
// 2026-11-23 (docs/performance.md).
const HostAllreduceMax = 1 << 20

// The port-staged family's hostput (collectives/family/portstaged): the largest message
// (the size column) it takes, and the largest -k auto picks it for, so that no rank-pair
// message it sends is larger. Measured on 2xH100 as 2 simulated hosts, 2026-11-25
// (docs/algorithms.md#crossovers): at 256 KiB-4 MiB hostput took 1.02-3.34x less time than
// portput in all nine collectives, and less at 16 MiB in all but sendrecv (0.95x); the
// bound stops at 4 MiB because its pinned host memory grows with it. allgather's hostput
// is the family's too.
const (
	HostStagedMax     = 4 << 20
	HostStagedAutoMax = HostStagedMax
)
