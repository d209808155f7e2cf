package collectives

import (
	"fmt"
	"strings"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
)

// Needs is what an algorithm needs of the job's layout: which ranks share a host and how
// pairs are connected (Algorithm.Needs).
type Needs int

const (
	// OneHost: memory channels to every peer, so every pair of ranks is connected by CUDA
	// IPC (all ranks on one host, --transport auto or nvlink). The zero value: the default.
	OneHost Needs = iota
	// HostGroups: memory channels among the ranks of each host and port channels between
	// the ranks of equal local index on different hosts, so every host has the same number
	// of ranks and the ranks of a host are connected by CUDA IPC.
	HostGroups
	// AnyLayout: port channels only, over whatever connects each pair.
	AnyLayout
	// NoIPC: port channels only, and no pair of ranks connected by CUDA IPC: every peer
	// over a network transport (one rank per host, or --transport ethernet or ib), which
	// host-resident buffers need (channels.Mesh.ShareHost).
	NoIPC
	// SomeNetwork: port channels to the peers over a network transport, memory channels to
	// the peers connected by CUDA IPC, so some pair talks over a network, and the ranks of
	// each host are all connected by CUDA IPC or all over the network (the host-resident
	// algorithms that serve a host's own ranks over NVLink).
	SomeNetwork
	// Rails: HostGroups across several hosts with several ranks each: memory channels
	// inside each host, the network only along the rails (rail routing, the port-staged
	// family's railput).
	Rails
)

// String names what the algorithm needs, for error messages and help.
func (n Needs) String() string {
	switch n {
	case OneHost:
		return "every rank on one host, connected by CUDA IPC"
	case HostGroups:
		return "hosts with equal rank counts, the ranks of each host connected by CUDA IPC"
	case AnyLayout:
		return "any layout"
	case NoIPC:
		return "no pair of ranks connected by CUDA IPC (every peer over a network transport)"
	case SomeNetwork:
		return "some pair of ranks over a network transport (several hosts, or --transport ethernet or ib)"
	case Rails:
		return "several hosts of equal rank counts, at least 2, the ranks of each host connected by CUDA IPC"
	}
	return fmt.Sprintf("Needs(%d)", int(n))
}

// Layout is how a job's ranks are spread over hosts, as algorithms see it.
type Layout struct {
	// Hosts lists the ranks of each host in rank order, hosts in order of their lowest
	// rank (channels.Hosts).
	Hosts [][]int
	// HostIPC says every pair of ranks that share a host is connected by CUDA IPC (not so
	// under --transport ethernet or ib).
	HostIPC bool
	// HostNoIPC says no pair of ranks that share a host is connected by CUDA IPC (every
	// pair over a network transport).
	HostNoIPC bool
	// GPUSharing is how ranks share GPUs, which the worker knows and sets; LayoutOf
	// leaves it zero (a GPU per rank).
	GPUSharing
}

// GPUSharing is how a job's ranks share GPUs: what the worker learns from every rank's
// device (internal/gpushare) and the mesh cannot see.
type GPUSharing struct {
	// SharedGPU says some GPU serves several ranks (as clients of an MPS daemon, or
	// time-sliced): their kernels and CPU threads compete, and -k auto takes rail routing
	// on several hosts of equal rank counts, at least 2 (Rails; portstaged.RailAuto).
	SharedGPU bool
	// MPSNetwork says ranks share a GPU as clients of an MPS daemon with the driver's
	// default work queues (CUDA_DEVICE_MAX_CONNECTIONS unset) while some pair talks over a
	// network transport: the algorithms with a NotWithMPSNetwork reason are refused
	// (docs/gpu-testing.md).
	MPSNetwork bool
}

// OneHostLayout is nranks ranks on one host, connected by CUDA IPC.
func OneHostLayout(nranks int) Layout {
	host := make([]int, nranks)
	for r := range host {
		host[r] = r
	}
	return Layout{Hosts: [][]int{host}, HostIPC: true}
}

// NewLayout builds the layout of ranks whose host ids are hostIDs (rank r on host
// hostIDs[r]); ipc(i, j) says whether ranks i < j are connected by CUDA IPC.
func NewLayout(hostIDs []string, ipc func(i, j int) bool) Layout {
	eps := make([]channels.Endpoint, len(hostIDs))
	for r, h := range hostIDs {
		eps[r] = channels.Endpoint{Rank: r, HostID: h}
	}
	l := Layout{Hosts: channels.Hosts(eps), HostIPC: true, HostNoIPC: true}
	for i := range hostIDs {
		for j := i + 1; j < len(hostIDs); j++ {
			if hostIDs[i] == hostIDs[j] {
				if ipc(i, j) {
					l.HostNoIPC = false
				} else {
					l.HostIPC = false
				}
			}
		}
	}
	return l
}

// NetworkOnly says no pair of ranks is connected by CUDA IPC: every host has one rank,
// or no pair on a host uses CUDA IPC.
func (l Layout) NetworkOnly() bool {
	return l.HostNoIPC || l.MostOnAHost() <= 1
}

// MostOnAHost is the largest rank count of any host.
func (l Layout) MostOnAHost() int {
	most := 0
	for _, rs := range l.Hosts {
		most = max(most, len(rs))
	}
	return most
}

// AcrossNetwork says some pair of ranks is not connected by CUDA IPC (several hosts, or a
// network transport inside one): where the one-host algorithms do not run.
func (l Layout) AcrossNetwork() bool { return len(l.Hosts) > 1 || !l.HostIPC }

// LayoutOf returns the layout of the mesh's job.
func LayoutOf(m *channels.Mesh) Layout {
	ids := make([]string, m.NRanks)
	for r, e := range m.Endpoints {
		ids[r] = e.HostID
	}
	return NewLayout(ids, func(i, j int) bool { return m.PairTransport(i, j).Maps() })
}

// NRanks is the job's rank count.
func (l Layout) NRanks() int {
	n := 0
	for _, h := range l.Hosts {
		n += len(h)
	}
	return n
}

// Local returns the host of rank r, its index there, and the host's ranks.
func (l Layout) Local(r int) (host, index int, ranks []int) {
	for h, rs := range l.Hosts {
		for i, q := range rs {
			if q == r {
				return h, i, rs
			}
		}
	}
	return -1, -1, nil
}

// Hierarchical says the job spans several hosts with several ranks on some host: where the
// hierarchical algorithms (NVLink inside a host, the network along each rail) beat the
// flat port algorithms. With one rank per host they would be the flat ones.
func (l Layout) Hierarchical() bool {
	if len(l.Hosts) < 2 {
		return false
	}
	for _, rs := range l.Hosts {
		if len(rs) > 1 {
			return true
		}
	}
	return false
}

// equalHosts says every host has as many ranks as the first, all connected by CUDA IPC:
// the layouts of Needs HostGroups.
func (l Layout) equalHosts() bool {
	ok := l.HostIPC
	for _, rs := range l.Hosts {
		ok = ok && len(rs) == len(l.Hosts[0])
	}
	return ok
}

// Rails says the job spans several hosts of equal rank counts, at least 2 each, the ranks
// of each host connected by CUDA IPC: the layouts of Needs Rails, where rail routing runs.
func (l Layout) Rails() bool {
	return l.equalHosts() && len(l.Hosts) > 1 && len(l.Hosts[0]) > 1
}

// Rail returns the ranks of local index i on every host, in host order: the ranks a
// hierarchical algorithm connects across hosts.
func (l Layout) Rail(i int) []int {
	var out []int
	for _, rs := range l.Hosts {
		if i < len(rs) {
			out = append(out, rs[i])
		}
	}
	return out
}

// String says how the ranks spread: "2 hosts (0,1 | 2,3), CUDA IPC inside each".
func (l Layout) String() string {
	var hosts []string
	for _, rs := range l.Hosts {
		var s []string
		for _, r := range rs {
			s = append(s, fmt.Sprint(r))
		}
		hosts = append(hosts, strings.Join(s, ","))
	}
	within := "CUDA IPC inside each"
	if !l.HostIPC {
		within = "not all by CUDA IPC inside a host"
	}
	noun := "hosts"
	if len(l.Hosts) == 1 {
		noun = "host"
	}
	return fmt.Sprintf("%d %s (%s), %s", len(l.Hosts), noun, strings.Join(hosts, " | "), within)
}

// Fits says whether a can run on layout l, and if not, why.
func (a *Algorithm) Fits(l Layout) error {
	ok := true
	switch a.Needs {
	case OneHost:
		ok = len(l.Hosts) <= 1 && l.HostIPC
	case HostGroups:
		ok = l.equalHosts()
	case Rails:
		ok = l.Rails()
	case NoIPC:
		ok = l.NetworkOnly()
	case SomeNetwork:
		ok = l.AcrossNetwork() && (l.HostIPC || l.NetworkOnly())
	}
	if !ok {
		return fmt.Errorf("%s %s needs %s; this job has %v", a.Collective, a.Name, a.Needs, l)
	}
	if l.MPSNetwork && a.NotWithMPSNetwork != "" {
		return fmt.Errorf("%s %s does not run where ranks share a GPU under MPS and pairs talk over a network: %s", a.Collective, a.Name, a.NotWithMPSNetwork)
	}
	return nil
}

// supportsIn says whether a runs size bytes of dtype on layout l.
func (a *Algorithm) supportsIn(size int64, l Layout, dtype string) error {
	if err := a.Supports(size, l.NRanks(), dtype); err != nil {
		return err
	}
	return a.Fits(l)
}

// SupportsAt is supportsIn for buffers offBytes past their aligned start (-u).
func (a *Algorithm) SupportsAt(size int64, l Layout, dtype string, offBytes int64) error {
	if err := a.supportsIn(size, l, dtype); err != nil {
		return err
	}
	return a.SupportsOffset(offBytes)
}

// CheckLayout says, once the job has started and before the header, whether -k k of
// collective can run on layout l: a named algorithm must fit it; auto and all pick among
// those that do, so at least one of the collective's algorithms must.
func CheckLayout(collective, k string, l Layout) error {
	if k == "auto" || k == "all" {
		var needs []string
		for _, a := range Algorithms(collective) {
			if a.Fits(l) == nil {
				return nil
			}
			needs = append(needs, fmt.Sprintf("%s needs %s", a.Name, a.Needs))
		}
		return fmt.Errorf("no %s algorithm runs on this job's layout (%v): %s", collective, l, strings.Join(needs, ", "))
	}
	a, err := Find(collective, k)
	if err != nil {
		return err
	}
	return a.Fits(l)
}
