package collectives

import (
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// base is what most algorithm instances share: the environment and a LaunchState
// (kernels/include/mscclpp/handles.h) in device memory. Memory comes from the
// mesh, which frees it.
type base struct {
	env   *Env
	state device.Ptr
}

func newBase(env *Env) (*base, error) {
	st, err := env.Mesh.Alloc(uint64(unsafe.Sizeof(channels.LaunchState{})))
	if err != nil {
		return nil, err
	}
	return &base{env: env, state: st}, nil
}

// Close does nothing: the mesh owns the memory.
func (b *base) Close() error { return nil }

// memoryChannels makes one memory channel per peer to the peers' copies of remote and
// uploads them as a device array.
func (b *base) memoryChannels(remote *channels.Buffer, local device.Ptr) (device.Ptr, error) {
	hs, err := b.env.Mesh.MemoryChannels(remote, local)
	if err != nil {
		return 0, err
	}
	return b.env.Mesh.Upload(channels.HandlesBytes(hs))
}

// peerBuffers are memory channels to every peer's input and output buffers, for
// algorithms that read the peers' inputs (in place, those live in the output buffers).
type peerBuffers struct{ inChans, outChans device.Ptr }

// peerBuffers makes the channels to the peers' inputs and outputs.
func (b *base) peerBuffers() (peerBuffers, error) {
	var p peerBuffers
	var err error
	me := b.env.Rank
	if p.inChans, err = b.memoryChannels(b.env.In, b.env.In.Ptrs[me]); err != nil {
		return p, err
	}
	p.outChans, err = b.memoryChannels(b.env.Out, b.env.Out.Ptrs[me])
	return p, err
}

// inputs returns the channels that reach the peers' inputs of call l.
func (p peerBuffers) inputs(l *LaunchArgs) device.Ptr {
	if l.InPlace {
		return p.outChans
	}
	return p.inChans
}

// blockChannels makes one set of memory channels to the peers' outputs per block the grid
// may have (env.SMs), uploaded as one array indexed [block][peer].
func (b *base) blockChannels() (device.Ptr, error) {
	var all []channels.MemoryChannelHandle
	for i := 0; i < b.env.SMs; i++ {
		hs, err := b.env.Mesh.MemoryChannels(b.env.Out, b.env.Out.Ptrs[b.env.Rank])
		if err != nil {
			return 0, err
		}
		all = append(all, hs...)
	}
	return b.env.Mesh.Upload(channels.HandlesBytes(all))
}

// portChannelSets makes `sets` groups of port channels (one per peer each, so each group
// has its own semaphores) from local[0, localBytes) to the peers' copies of remote, and
// uploads them as one array indexed [set][peer].
func (b *base) portChannelSets(sets int, remote *channels.Buffer, local device.Ptr, localBytes uint64, opts ...channels.PortOption) (device.Ptr, error) {
	var all []channels.PortChannelHandle
	for i := 0; i < sets; i++ {
		hs, err := b.env.Mesh.PortChannels(remote, local, localBytes, opts...)
		if err != nil {
			return 0, err
		}
		all = append(all, hs...)
	}
	return b.env.Mesh.Upload(channels.HandlesBytes(all))
}

// shareScratch allocates and shares a scratch buffer.
func (b *base) shareScratch(bytes uint64) (device.Ptr, *channels.Buffer, error) {
	p, err := b.env.Mesh.Alloc(bytes)
	if err != nil {
		return 0, nil, err
	}
	buf, err := b.env.Mesh.Share(p, bytes)
	return p, buf, err
}

// blocks picks a grid: one block per `per` bytes, at least 1, at most the SM count.
func (b *base) blocks(bytes, per uint64) int {
	n := int((bytes + per - 1) / per)
	if n < 1 {
		n = 1
	}
	if n > b.env.SMs {
		n = b.env.SMs
	}
	return n
}

// putGrid adds, out of place, blocks that copy a rank's own chunk beside the put blocks
// of blockput kernels: one per four put blocks (at least one), and fewer put blocks where
// the whole grid would not fit the SMs at once. It returns the grid and the copy blocks.
func (b *base) putGrid(putBlocks int, inPlace bool) (grid, local int) {
	if inPlace {
		return putBlocks, 0
	}
	local = max(1, putBlocks/4)
	if putBlocks+local > b.env.SMs && b.env.SMs > local {
		putBlocks = b.env.SMs - local
	}
	return putBlocks + local, local
}

func roundUp(v, to uint64) uint64 { return (v + to - 1) / to * to }

func b2u(v bool) uint32 {
	if v {
		return 1
	}
	return 0
}

// limit caps the algorithm's scratch-sized maximum by the run's maximum.
func limit(algMax, runMax int64) uint64 {
	if algMax > 0 && algMax < runMax {
		return uint64(algMax)
	}
	return uint64(runMax)
}
