// Package topology discovers how a node's GPUs are connected, through NVML (the NVIDIA
// management library, loaded at run time by github.com/NVIDIA/go-nvml): names, UUIDs,
// memory and the number of NVLinks between each pair, direct or through NVSwitches.
package topology

import (
	"fmt"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// GPU is what NVML reports for one GPU.
type GPU struct {
	Index       int    // NVML's index of the GPU on the node
	BusID       string // PCI bus id
	Name        string
	UUID        string
	MemoryBytes uint64
	// Links lists the far end of each active NVLink of this GPU.
	Links []Link
}

// Link is the far end of one active NVLink.
type Link struct {
	Switch bool   // the link ends at an NVSwitch, which reaches every GPU on the switch fabric
	BusID  string // the peer GPU's PCI bus id, when !Switch
}

// Node is the result of Discover.
type Node struct {
	Driver string
	GPUs   []GPU
}

// Discover lists every GPU NVML sees on the node, in NVML's index order.
func Discover() (*Node, error) { return discover(goNVML{}) }

// nvmlLib is the part of NVML that Discover uses: go-nvml (goNVML), or recorded answers
// in tests, so that the discovery logic is tested on machines without a driver.
type nvmlLib interface {
	Init() nvml.Return
	Shutdown() nvml.Return
	SystemGetDriverVersion() (string, nvml.Return)
	DeviceGetCount() (int, nvml.Return)
	DeviceGetHandleByIndex(index int) (nvmlDevice, nvml.Return)
	ErrorString(ret nvml.Return) string
}

// nvmlDevice is the part of an NVML device handle that describe uses.
type nvmlDevice interface {
	GetPciInfo() (nvml.PciInfo, nvml.Return)
	GetName() (string, nvml.Return)
	GetUUID() (string, nvml.Return)
	GetMemoryInfo() (nvml.Memory, nvml.Return)
	GetNvLinkState(link int) (nvml.EnableState, nvml.Return)
	GetNvLinkRemoteDeviceType(link int) (nvml.IntNvLinkDeviceType, nvml.Return)
	GetNvLinkRemotePciInfo(link int) (nvml.PciInfo, nvml.Return)
}

// goNVML is NVML through go-nvml, which loads libnvidia-ml at Init.
type goNVML struct{}

func (goNVML) Init() nvml.Return                             { return nvml.Init() }
func (goNVML) Shutdown() nvml.Return                         { return nvml.Shutdown() }
func (goNVML) SystemGetDriverVersion() (string, nvml.Return) { return nvml.SystemGetDriverVersion() }
func (goNVML) DeviceGetCount() (int, nvml.Return)            { return nvml.DeviceGetCount() }
func (goNVML) ErrorString(ret nvml.Return) string            { return nvml.ErrorString(ret) }
func (goNVML) DeviceGetHandleByIndex(i int) (nvmlDevice, nvml.Return) {
	return nvml.DeviceGetHandleByIndex(i)
}

func discover(lib nvmlLib) (*Node, error) {
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("NVML init: %s", lib.ErrorString(ret))
	}
	defer lib.Shutdown()
	n := &Node{}
	var ret nvml.Return
	if n.Driver, ret = lib.SystemGetDriverVersion(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("NVML driver version: %s", lib.ErrorString(ret))
	}
	count, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return nil, fmt.Errorf("NVML device count: %s", lib.ErrorString(ret))
	}
	for i := 0; i < count; i++ {
		d, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			return nil, fmt.Errorf("NVML GPU %d: %s", i, lib.ErrorString(ret))
		}
		g, err := describe(lib, i, d)
		if err != nil {
			return nil, err
		}
		n.GPUs = append(n.GPUs, g)
	}
	return n, nil
}

func describe(lib nvmlLib, index int, d nvmlDevice) (GPU, error) {
	g := GPU{Index: index}
	pci, ret := d.GetPciInfo()
	if ret != nvml.SUCCESS {
		return g, fmt.Errorf("NVML GPU %d bus id: %s", index, lib.ErrorString(ret))
	}
	g.BusID = cString(pci.BusId[:])
	bus := g.BusID
	if g.Name, ret = d.GetName(); ret != nvml.SUCCESS {
		return g, fmt.Errorf("NVML GPU %s name: %s", bus, lib.ErrorString(ret))
	}
	if g.UUID, ret = d.GetUUID(); ret != nvml.SUCCESS {
		return g, fmt.Errorf("NVML GPU %s UUID: %s", bus, lib.ErrorString(ret))
	}
	if mem, ret := d.GetMemoryInfo(); ret == nvml.SUCCESS {
		g.MemoryBytes = mem.Total
	}
	for link := 0; link < nvml.NVLINK_MAX_LINKS; link++ {
		state, ret := d.GetNvLinkState(link)
		if ret == nvml.ERROR_NOT_SUPPORTED || ret == nvml.ERROR_INVALID_ARGUMENT {
			break // no (more) NVLinks on this GPU
		}
		if ret != nvml.SUCCESS || state != nvml.FEATURE_ENABLED {
			continue
		}
		kind, ret := d.GetNvLinkRemoteDeviceType(link)
		if ret != nvml.SUCCESS {
			return g, fmt.Errorf("NVML GPU %s link %d remote type: %s", bus, link, lib.ErrorString(ret))
		}
		if kind == nvml.NVLINK_DEVICE_TYPE_SWITCH {
			g.Links = append(g.Links, Link{Switch: true})
			continue
		}
		pci, ret := d.GetNvLinkRemotePciInfo(link)
		if ret != nvml.SUCCESS {
			return g, fmt.Errorf("NVML GPU %s link %d remote: %s", bus, link, lib.ErrorString(ret))
		}
		g.Links = append(g.Links, Link{BusID: cString(pci.BusId[:])})
	}
	return g, nil
}

func cString(b []uint8) string {
	s := string(b)
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return s
}

// NVLinks returns the number of NVLinks between every pair of the given GPUs: direct links
// to each other, plus, when both have links to NVSwitches, the smaller of their switch link
// counts (a switch fabric carries as many links between two GPUs as the thinner side has).
// Bus ids are compared ignoring case and the length of the PCI domain ("00000000:19:00.0"
// equals "0000:19:00.0").
func NVLinks(gpus []GPU) [][]int {
	out := make([][]int, len(gpus))
	switches := make([]int, len(gpus))
	for i, g := range gpus {
		out[i] = make([]int, len(gpus))
		for _, l := range g.Links {
			if l.Switch {
				switches[i]++
			}
		}
	}
	for i, g := range gpus {
		for j, h := range gpus {
			if i == j {
				continue
			}
			for _, l := range g.Links {
				if !l.Switch && SameBus(l.BusID, h.BusID) {
					out[i][j]++
				}
			}
			out[i][j] += min(switches[i], switches[j])
		}
	}
	return out
}

// SameBus reports whether two PCI bus ids name the same device.
func SameBus(a, b string) bool { return normalise(a) == normalise(b) }

func normalise(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	dom, rest, ok := strings.Cut(id, ":")
	if !ok || !strings.Contains(rest, ":") {
		return id // no domain part
	}
	dom = strings.TrimLeft(dom, "0")
	if !strings.Contains(rest, ".") {
		rest += ".0"
	}
	return dom + ":" + rest
}
