package algo

import (
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Base is what most algorithm instances share: the environment and a LaunchState
// (kernels/include/mscclpp/handles.h) in device memory. Memory comes from the
// mesh, which frees it.
type Base struct {
	Env   *collectives.Env
	State device.Ptr
}

// NewBase allocates the LaunchState of an algorithm instance on env's mesh.
func NewBase(env *collectives.Env) (*Base, error) {
	st, err := env.Mesh.Alloc(uint64(unsafe.Sizeof(channels.LaunchState{})))
	if err != nil {
		return nil, err
	}
	return &Base{Env: env, State: st}, nil
}

// Close does nothing: the mesh owns the memory.
func (b *Base) Close() error { return nil }

// MemoryChannels makes one memory channel per peer to the peers' copies of remote and
// uploads them as a device array.
func (b *Base) MemoryChannels(remote *channels.Buffer, local device.Ptr) (device.Ptr, error) {
	hs, err := b.Env.Mesh.MemoryChannels(remote, local)
	if err != nil {
		return 0, err
	}
	return b.Env.Mesh.Upload(channels.HandlesBytes(hs))
}

// PeerBuffers are memory channels to every peer's input and output buffers, for
// algorithms that read the peers' inputs (in place, those live in the output buffers).
type PeerBuffers struct{ InChans, OutChans device.Ptr }

// PeerBuffers makes the channels to the peers' inputs and outputs.
func (b *Base) PeerBuffers() (PeerBuffers, error) {
	var p PeerBuffers
	var err error
	me := b.Env.Rank
	if p.InChans, err = b.MemoryChannels(b.Env.In, b.Env.In.Ptrs[me]); err != nil {
		return p, err
	}
	p.OutChans, err = b.MemoryChannels(b.Env.Out, b.Env.Out.Ptrs[me])
	return p, err
}

// Inputs returns the channels that reach the peers' inputs of call l.
func (p PeerBuffers) Inputs(l *collectives.LaunchArgs) device.Ptr {
	if l.InPlace {
		return p.OutChans
	}
	return p.InChans
}

// BlockChannels makes one set of memory channels to the peers' outputs per block the grid
// may have (env.SMs), uploaded as one array indexed [block][peer].
func (b *Base) BlockChannels() (device.Ptr, error) {
	var all []channels.MemoryChannelHandle
	for i := 0; i < b.Env.SMs; i++ {
		hs, err := b.Env.Mesh.MemoryChannels(b.Env.Out, b.Env.Out.Ptrs[b.Env.Rank])
		if err != nil {
			return 0, err
		}
		all = append(all, hs...)
	}
	return b.Env.Mesh.Upload(channels.HandlesBytes(all))
}

// PortChannelSets makes `sets` groups of port channels (one per peer each, so each group
// has its own semaphores) from local[0, localBytes) to the peers' copies of remote, and
// uploads them as one array indexed [set][peer].
func (b *Base) PortChannelSets(sets int, remote *channels.Buffer, local device.Ptr, localBytes uint64, opts ...channels.PortOption) (device.Ptr, error) {
	var all []channels.PortChannelHandle
	for i := 0; i < sets; i++ {
		hs, err := b.Env.Mesh.PortChannels(remote, local, localBytes, opts...)
		if err != nil {
			return 0, err
		}
		all = append(all, hs...)
	}
	return b.Env.Mesh.Upload(channels.HandlesBytes(all))
}

// ShareScratch allocates and shares a scratch buffer.
func (b *Base) ShareScratch(bytes uint64) (device.Ptr, *channels.Buffer, error) {
	p, err := b.Env.Mesh.Alloc(bytes)
	if err != nil {
		return 0, nil, err
	}
	buf, err := b.Env.Mesh.Share(p, bytes)
	return p, buf, err
}

// Blocks picks a grid: one block per `per` bytes, at least 1, at most the SM count.
func (b *Base) Blocks(bytes, per uint64) int {
	n := int((bytes + per - 1) / per)
	if n < 1 {
		n = 1
	}
	if n > b.Env.SMs {
		n = b.Env.SMs
	}
	return n
}

// PutGrid adds, out of place, blocks that copy a rank's own chunk beside the put blocks
// of blockput kernels: one per four put blocks (at least one), and fewer put blocks where
// the whole grid would not fit the SMs at once. It returns the grid and the copy blocks.
func (b *Base) PutGrid(putBlocks int, inPlace bool) (grid, local int) {
	if inPlace {
		return putBlocks, 0
	}
	local = max(1, putBlocks/4)
	if putBlocks+local > b.Env.SMs && b.Env.SMs > local {
		putBlocks = b.Env.SMs - local
	}
	return putBlocks + local, local
}

// RoundUp rounds v up to a multiple of to.
func RoundUp(v, to uint64) uint64 { return (v + to - 1) / to * to }

// B2U is 1 for true and 0 for false, a kernel's flag.
func B2U(v bool) uint32 {
	if v {
		return 1
	}
	return 0
}

// Limit caps the algorithm's scratch-sized maximum by the run's maximum.
func Limit(algMax, runMax int64) uint64 {
	if algMax > 0 && algMax < runMax {
		return uint64(algMax)
	}
	return uint64(runMax)
}
