package collectives

import (
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// portScatter is a shared scratch buffer of `slots` slots of slotBytes and port channels
// into every peer's copy of it, from my input and from my output (in place): what the
// algorithms that put into their peers' scratch (allreduce port and portrsag, allgather
// portput) set up alike. opts go to every channel (NetworkHostTokens for kernels that
// poll the channels from block 0 only, port_collective_device.cuh).
type portScatter struct {
	scratch         device.Ptr
	slotBytes       uint64
	fromIn, fromOut device.Ptr // PortChannelHandle[npeers] each
}

func newPortScatter(b *base, slotBytes uint64, slots int, opts ...channels.PortOption) (portScatter, error) {
	s := portScatter{slotBytes: slotBytes}
	scratch, buf, err := b.shareScratch(uint64(slots) * slotBytes)
	if err != nil {
		return s, err
	}
	s.scratch = scratch
	e, me := b.env, b.env.Rank
	if s.fromIn, err = b.portChannelSets(1, buf, e.In.Ptrs[me], e.InBytes, opts...); err != nil {
		return s, err
	}
	s.fromOut, err = b.portChannelSets(1, buf, e.Out.Ptrs[me], e.OutBytes, opts...)
	return s, err
}

// from returns the channels whose source holds the launch's input.
func (s *portScatter) from(l *LaunchArgs) device.Ptr {
	if l.InPlace {
		return s.fromOut
	}
	return s.fromIn
}
