package algo

import (
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// PortScatter is a shared scratch buffer of `slots` slots of slotBytes and port channels
// into every peer's copy of it, from my input and from my output (in place): what the
// algorithms that put into their peers' scratch (allreduce port and portrsag, allgather
// portput) set up alike. opts go to every channel (NetworkHostTokens for kernels that
// poll the channels from block 0 only, port_collective_device.cuh).
type PortScatter struct {
	Scratch         device.Ptr
	SlotBytes       uint64
	FromIn, fromOut device.Ptr // PortChannelHandle[npeers] each
}

// NewPortScatter makes the scratch of `slots` slots of slotBytes and the port channels
// into the peers' scratch from my input and from my output (opts apply to them).
func NewPortScatter(b *Base, slotBytes uint64, slots int, opts ...channels.PortOption) (PortScatter, error) {
	s := PortScatter{SlotBytes: slotBytes}
	scratch, buf, err := b.ShareScratch(uint64(slots) * slotBytes)
	if err != nil {
		return s, err
	}
	s.Scratch = scratch
	e, me := b.Env, b.Env.Rank
	if s.FromIn, err = b.PortChannelSets(1, buf, e.In.Ptrs[me], e.InBytes, opts...); err != nil {
		return s, err
	}
	s.fromOut, err = b.PortChannelSets(1, buf, e.Out.Ptrs[me], e.OutBytes, opts...)
	return s, err
}

// From returns the channels whose source holds the launch's input.
func (s *PortScatter) From(l *collectives.LaunchArgs) device.Ptr {
	if l.InPlace {
		return s.fromOut
	}
	return s.FromIn
}
