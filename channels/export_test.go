package channels

import "github.com/mscclpp-bench/mscclpp-bench/internal/device"

// Views of the core's internals for its external tests (package channels_test), which
// build meshes over the transports and so cannot be in package channels.

// Mask36 is the largest offset a trigger carries.
const Mask36 = mask36

// Slot returns the FIFO's slot for position pos.
func (f *Fifo) Slot(pos uint64) *[2]uint64 { return f.slot(pos) }

// HostTokenDevs returns every rank's host token file as the GPU addresses it, or nil
// when no port channel of the mesh keeps its tokens in host memory.
func (m *Mesh) HostTokenDevs() map[int]device.Ptr {
	if m.hostTok == nil {
		return nil
	}
	return m.hostTok.devs
}

// HostTokenMaps returns the host token files mapped here, by rank (nil as above).
func (m *Mesh) HostTokenMaps() map[int][]byte {
	if m.hostTok == nil {
		return nil
	}
	return m.hostTok.maps
}

// Tokens returns the device address of the mesh's inbound token array in GPU memory.
func (m *Mesh) Tokens() device.Ptr { return m.tokens }
