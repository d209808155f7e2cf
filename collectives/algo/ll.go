package algo

import "github.com/mscclpp-bench/mscclpp-bench/internal/device"

// LLScratch is the packet scratch of an LL16 algorithm of alltoall, sendrecv, broadcast,
// reduce or reducescatter (kernels/include/mscclpp/ll_device.cuh): my scratch, shared with
// every peer, and memory channels to the peers' copies. It holds `slots` slots of slotBytes,
// after a credit area when the algorithm's traffic goes one way (broadcast, reduce).
// Such an algorithm rotates through llSlots slots of its packets, and its grid is at most
// llCreditSlots blocks (llCreditGrid).
type LLScratch struct {
	Chans     device.Ptr // MemoryChannelHandle[npeers] to the peers' scratch
	Scratch   device.Ptr
	SlotBytes uint64
}

// LLSlotBytes is a slot that holds up to maxData bytes as LL16 packets (16 bytes per 8 of
// data, a partial last one included), rounded up to 256 bytes.
func LLSlotBytes(maxData uint64) uint64 { return RoundUp(2*maxData+16, 256) }

// llSlots and llCreditSlots mirror ll_device.cuh's kLLSlots and kLLCreditSlots (a test
// compares): an algorithm with credits rotates through llSlots slots of packets, and each
// rank has a row of llCreditSlots credit words, one or more per block, in each peer's
// scratch.
const (
	LLSlots       = 4
	LLCreditSlots = 128
)

// LLCreditBytes is the credit area at the start of a scratch that takes credits: a row of
// LLCreditSlots 32-bit words per rank, rounded up to 256 bytes. It must match
// ll_device.cuh's llCreditBytes.
func LLCreditBytes(nranks int) uint64 { return RoundUp(uint64(nranks)*LLCreditSlots*4, 256) }

// LLScratchBytes is the size of a scratch of `slots` slots for maxData bytes each, with the
// credit area of nranks ranks when credits is set.
func LLScratchBytes(maxData, slots uint64, nranks int, credits bool) uint64 {
	n := slots * LLSlotBytes(maxData)
	if credits {
		n += LLCreditBytes(nranks)
	}
	return n
}

// LLScratch allocates and shares the scratch (zeroed: no packet or credit is there yet)
// and makes the channels to the peers' copies.
func (b *Base) LLScratch(maxData, slots uint64, credits bool) (LLScratch, error) {
	s := LLScratch{SlotBytes: LLSlotBytes(maxData)}
	scratch, buf, err := b.ShareScratch(LLScratchBytes(maxData, slots, b.Env.NRanks, credits))
	if err != nil {
		return s, err
	}
	s.Scratch = scratch
	s.Chans, err = b.MemoryChannels(buf, scratch)
	return s, err
}

// LLGrid is the grid and block of an LL16 kernel that moves `bytes` per peer: a block of 512
// threads per 512 packets (one packet per thread and peer), at most one block per SM.
func (b *Base) LLGrid(bytes uint64) device.Dim {
	return device.Dim{Grid: b.Blocks(bytes/8, 512), Block: 512}
}

// LLCreditGrid is llGrid within the llCreditSlots blocks that a kernel with credits can
// have (a block owns at least one credit word).
func (b *Base) LLCreditGrid(bytes uint64) device.Dim {
	d := b.LLGrid(bytes)
	d.Grid = min(d.Grid, LLCreditSlots)
	return d
}
