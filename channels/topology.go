package channels

import (
	"fmt"
	"slices"
	"strings"
)

// EnvHostID overrides the host a rank says it is on, like NCCL_HOSTID: ranks with the same
// value share a host, so one machine can act as several.
const EnvHostID = "MSCCLPP_BENCH_HOSTID"

// Mode is the --transport choice: how pairs of ranks connect.
type Mode int

// Modes.
const (
	// ModeAuto connects ranks of one host with CUDA IPC and ranks of different hosts with
	// InfiniBand when both have a usable HCA, else with Ethernet.
	ModeAuto Mode = iota
	// ModeNVLink uses CUDA IPC for every pair: all ranks must share one host.
	ModeNVLink
	// ModeEthernet uses TCP sockets for every pair, even within a host.
	ModeEthernet
	// ModeIB uses InfiniBand for every pair: every rank needs a usable HCA.
	ModeIB
)

var modeNames = []string{"auto", "nvlink", "ethernet", "ib"}

// ParseMode reads the --transport flag: auto, nvlink (or cudaipc), ethernet, ib.
func ParseMode(s string) (Mode, error) {
	if s == "cudaipc" {
		return ModeNVLink, nil
	}
	if i := slices.Index(modeNames, s); i >= 0 {
		return Mode(i), nil
	}
	return 0, fmt.Errorf("unknown transport %q (want auto, nvlink, ethernet or ib)", s)
}

// String returns the flag value of the mode.
func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// wants returns the transports a rank should offer under the mode (CUDA IPC is always
// offered: it needs no set-up; IB is looked for only where it may be chosen, connect.go).
func (m Mode) wants() Transport {
	switch m {
	case ModeAuto:
		return TransportCUDAIPC | TransportIB | TransportEthernet
	case ModeEthernet:
		return TransportCUDAIPC | TransportEthernet
	case ModeIB:
		return TransportCUDAIPC | TransportIB
	}
	return TransportCUDAIPC
}

// SelectTransport picks how ranks a and b connect under mode. Ranks share a host when
// their HostIDs are equal. The choice depends only on the two endpoints, so every rank
// computes the same answer for every pair.
func SelectTransport(mode Mode, a, b Endpoint) (Transport, error) {
	same := a.HostID == b.HostID
	both := a.Transports & b.Transports
	pair := fmt.Sprintf("rank %d (host %s) and rank %d (host %s)", a.Rank, a.HostID, b.Rank, b.HostID)
	lacking := func(t Transport) int {
		if a.Transports&t == 0 {
			return a.Rank
		}
		return b.Rank
	}
	switch mode {
	case ModeAuto:
		switch {
		case same:
			return TransportCUDAIPC, nil
		case both&TransportIB != 0:
			return TransportIB, nil
		case both&TransportEthernet != 0:
			return TransportEthernet, nil
		}
		return 0, fmt.Errorf("%s are on different hosts and share no network transport (rank %d offers %v, rank %d offers %v)",
			pair, a.Rank, a.Transports, b.Rank, b.Transports)
	case ModeNVLink:
		if same {
			return TransportCUDAIPC, nil
		}
		return 0, fmt.Errorf("%s are on different hosts: --transport nvlink connects the GPUs of one host; use auto, ethernet or ib", pair)
	case ModeEthernet:
		if both&TransportEthernet != 0 {
			return TransportEthernet, nil
		}
		return 0, fmt.Errorf("%s: rank %d has no Ethernet data listener", pair, lacking(TransportEthernet))
	case ModeIB:
		if both&TransportIB != 0 {
			return TransportIB, nil
		}
		return 0, fmt.Errorf("%s: rank %d has no usable InfiniBand HCA", pair, lacking(TransportIB))
	}
	return 0, fmt.Errorf("unknown transport mode %v", mode)
}

// Hosts groups ranks by HostID, in order of each host's lowest rank.
func Hosts(eps []Endpoint) [][]int {
	var out [][]int
	index := map[string]int{}
	for _, e := range eps {
		i, ok := index[e.HostID]
		if !ok {
			i = len(out)
			index[e.HostID] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], e.Rank)
	}
	return out
}

// DescribeTransports says in one line how the ranks are spread over hosts and which
// transport each pair uses: "hosts=2 within=cudaipc between=ethernet" when the choice
// follows the hosts, otherwise every pair ("hosts=2 pairs=0-1:cudaipc,0-2:ib,...").
// pick(i, j) is the transport between ranks i < j.
func DescribeTransports(eps []Endpoint, pick func(i, j int) Transport) string {
	within, between := Transport(0), Transport(0)
	uniform := true
	var pairs []string
	for i := range eps {
		for j := i + 1; j < len(eps); j++ {
			t := pick(i, j)
			pairs = append(pairs, fmt.Sprintf("%d-%d:%v", i, j, t))
			side := &between
			if eps[i].HostID == eps[j].HostID {
				side = &within
			}
			if *side != 0 && *side != t {
				uniform = false
			}
			*side = t
		}
	}
	out := fmt.Sprintf("hosts=%d", len(Hosts(eps)))
	switch {
	case len(pairs) == 0:
		return out
	case !uniform:
		return out + " pairs=" + strings.Join(pairs, ",")
	}
	if within != 0 {
		out += " within=" + within.String()
	}
	if between != 0 {
		out += " between=" + between.String()
	}
	return out
}
