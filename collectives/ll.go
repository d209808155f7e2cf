package collectives

import "github.com/mscclpp-bench/mscclpp-bench/internal/device"

// llScratch is the packet scratch of an LL16 algorithm of alltoall, sendrecv, broadcast,
// reduce or reducescatter (kernels/include/mscclpp/ll_device.cuh): my scratch, shared with
// every peer, and memory channels to the peers' copies. It holds `slots` slots of slotBytes,
// after a credit area when the algorithm's traffic goes one way (broadcast, reduce).
// Such an algorithm rotates through llSlots slots of its packets, and its grid is at most
// llCreditSlots blocks (llCreditGrid).
type llScratch struct {
	chans     device.Ptr // MemoryChannelHandle[npeers] to the peers' scratch
	scratch   device.Ptr
	slotBytes uint64
}

// llSlotBytes is a slot that holds up to maxData bytes as LL16 packets (16 bytes per 8 of
// data, a partial last one included), rounded up to 256 bytes.
func llSlotBytes(maxData uint64) uint64 { return roundUp(2*maxData+16, 256) }

// llSlots and llCreditSlots mirror ll_device.cuh's kLLSlots and kLLCreditSlots (a test
// compares): an algorithm with credits rotates through llSlots slots of packets, and each
// rank has a row of llCreditSlots credit words, one or more per block, in each peer's
// scratch.
const (
	llSlots       = 4
	llCreditSlots = 128
)

// llCreditBytes is the credit area at the start of a scratch that takes credits: a row of
// llCreditSlots 32-bit words per rank, rounded up to 256 bytes. It must match
// ll_device.cuh's llCreditBytes.
func llCreditBytes(nranks int) uint64 { return roundUp(uint64(nranks)*llCreditSlots*4, 256) }

// llScratchBytes is the size of a scratch of `slots` slots for maxData bytes each, with the
// credit area of nranks ranks when credits is set.
func llScratchBytes(maxData, slots uint64, nranks int, credits bool) uint64 {
	n := slots * llSlotBytes(maxData)
	if credits {
		n += llCreditBytes(nranks)
	}
	return n
}

// llScratch allocates and shares the scratch (zeroed: no packet or credit is there yet)
// and makes the channels to the peers' copies.
func (b *base) llScratch(maxData, slots uint64, credits bool) (llScratch, error) {
	s := llScratch{slotBytes: llSlotBytes(maxData)}
	scratch, buf, err := b.shareScratch(llScratchBytes(maxData, slots, b.env.NRanks, credits))
	if err != nil {
		return s, err
	}
	s.scratch = scratch
	s.chans, err = b.memoryChannels(buf, scratch)
	return s, err
}

// llGrid is the grid and block of an LL16 kernel that moves `bytes` per peer: a block of 512
// threads per 512 packets (one packet per thread and peer), at most one block per SM.
func (b *base) llGrid(bytes uint64) device.Dim {
	return device.Dim{Grid: b.blocks(bytes/8, 512), Block: 512}
}

// llCreditGrid is llGrid within the llCreditSlots blocks that a kernel with credits can
// have (a block owns at least one credit word).
func (b *base) llCreditGrid(bytes uint64) device.Dim {
	d := b.llGrid(bytes)
	d.Grid = min(d.Grid, llCreditSlots)
	return d
}
