package algo

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// BlockPut is what the memory-channel put algorithms whose blocks each meet only the
// peers' blocks of the same index set up alike (allgather and alltoall blockput, sendrecv
// and hypercube put): a Base, their kernel, with arguments A, and one set of channels to
// the peers' outputs per block (BlockChannels).
type BlockPut[A any] struct {
	*Base
	Kernel params.Kernel[A]
	Chans  device.Ptr // MemoryChannelHandle[block][peer] to the peers' outputs
}

// NewBlockPut sets up a BlockPut on env that launches kernel k.
func NewBlockPut[A any](env *collectives.Env, k params.Func[A]) (*BlockPut[A], error) {
	b, err := NewBase(env)
	if err != nil {
		return nil, err
	}
	p := &BlockPut[A]{Base: b}
	if p.Kernel, err = k.Load(env.GPU); err != nil {
		return nil, err
	}
	if p.Chans, err = b.BlockChannels(); err != nil {
		return nil, err
	}
	return p, nil
}
