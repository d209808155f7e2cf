package algo

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// PortDirect is what the one-host copy-engine algorithms (alltoall, sendrecv and broadcast
// port; kernels/*_port.cu) set up alike, as allgather port does: port channels from my
// input into every peer's output, and memory channels to the peers' outputs for the start
// barrier.
type PortDirect struct {
	FromIn    device.Ptr // PortChannelHandle[npeers]: my input to the peers' outputs
	SyncChans device.Ptr // MemoryChannelHandle[npeers]
}

// NewPortDirect makes the port channels from my input to the peers' outputs and the
// memory channels that synchronise them.
func NewPortDirect(b *Base) (PortDirect, error) {
	var p PortDirect
	var err error
	e, me := b.Env, b.Env.Rank
	if p.FromIn, err = b.PortChannelSets(1, e.Out, e.In.Ptrs[me], e.InBytes); err != nil {
		return p, err
	}
	p.SyncChans, err = b.MemoryChannels(e.Out, e.Out.Ptrs[me])
	return p, err
}

// PortStaged adds to portDirect, for algorithms whose in-place puts would overwrite data
// the peer has not sent yet (alltoall, sendrecv), a shared scratch of the largest size and
// port channels from my output into every peer's scratch: in place, the data lands there
// and the receiver copies it into its output once its own puts have completed.
type PortStaged struct {
	PortDirect
	scratch   device.Ptr
	toScratch device.Ptr // PortChannelHandle[npeers]: my output to the peers' scratch
}

// NewPortStaged makes the scratch and the port channels from my output to the peers'
// scratch.
func NewPortStaged(b *Base) (PortStaged, error) {
	var p PortStaged
	var err error
	if p.PortDirect, err = NewPortDirect(b); err != nil {
		return p, err
	}
	e := b.Env
	scratch, buf, err := b.ShareScratch(RoundUp(uint64(max(e.MaxBytes, 16)), 256))
	if err != nil {
		return p, err
	}
	p.scratch = scratch
	p.toScratch, err = b.PortChannelSets(1, buf, e.Out.Ptrs[e.Rank], e.OutBytes)
	return p, err
}

// Route returns a launch's channels, scratch (0 out of place) and the destination offset
// in the peers' buffer: out of place, my input straight into the peers' outputs at my
// output's offset (the same on every rank); in place, my output into their scratch's start.
func (p *PortStaged) Route(l *collectives.LaunchArgs) (chans, scratch device.Ptr, dstOff uint64) {
	if l.InPlace {
		return p.toScratch, p.scratch, 0
	}
	return p.FromIn, 0, l.OutOff
}
