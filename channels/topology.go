package channels

import (
	"fmt"
	"slices"
	"strings"
)

// EnvHostID overrides the host a rank says it is on, like NCCL_HOSTID: ranks with the same
// value share a host, so one machine can act as several.
const EnvHostID = "MSCCLPP_BENCH_HOSTID"

// Mode is the --transport choice: how pairs of ranks connect. The zero Mode is auto;
// any other is one transport, named by its bit.
type Mode Transport

// ModeAuto connects every pair over the transport of highest priority that both ranks
// offer and that may connect them (one that maps memory only connects ranks of one host).
const ModeAuto Mode = 0

// ModeOf is the mode that connects every pair over transport t.
func ModeOf(t Transport) Mode { return Mode(t) }

// ParseMode reads the --transport flag: auto, or a registered transport's flag value or
// alias.
func ParseMode(s string) (Mode, error) {
	if s == "auto" {
		return ModeAuto, nil
	}
	for _, info := range Registered() {
		if s == info.Flag || slices.Contains(info.Aliases, s) {
			return ModeOf(info.Transport), nil
		}
	}
	return 0, fmt.Errorf("unknown transport %q (want %s)", s, orList(append([]string{"auto"}, flags(Registered())...)))
}

// flags returns the --transport values of records.
func flags(records []TransportInfo) []string {
	var out []string
	for _, info := range records {
		out = append(out, info.Flag)
	}
	return out
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// String returns the flag value of the mode.
func (m Mode) String() string {
	if m == ModeAuto {
		return "auto"
	}
	if info, ok := lookup(Transport(m)); ok {
		return info.Flag
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// mayUse reports whether the mode may connect some pair over transport t.
func (m Mode) mayUse(t Transport) bool { return m == ModeAuto || Transport(m) == t }

// SelectTransport picks how ranks a and b connect under mode. Ranks share a host when
// their HostIDs are equal. The choice depends only on the two endpoints (and the records
// of the transports, the same in every rank's program), so every rank computes the same
// answer for every pair.
func SelectTransport(mode Mode, a, b Endpoint) (Transport, error) {
	same := a.HostID == b.HostID
	both := a.Transports & b.Transports
	pair := fmt.Sprintf("rank %d (host %s) and rank %d (host %s)", a.Rank, a.HostID, b.Rank, b.HostID)
	if mode == ModeAuto {
		var best TransportInfo
		for _, info := range Registered() {
			if both&info.Transport != 0 && (same || !info.Maps) && (best.Transport == 0 || info.Priority > best.Priority) {
				best = info
			}
		}
		if best.Transport != 0 {
			return best.Transport, nil
		}
		where := "are on one host"
		if !same {
			where = "are on different hosts"
		}
		return 0, fmt.Errorf("%s %s and share no transport that connects them (rank %d offers %v, rank %d offers %v)",
			pair, where, a.Rank, a.Transports, b.Rank, b.Transports)
	}
	info, ok := lookup(Transport(mode))
	if !ok {
		return 0, fmt.Errorf("unknown transport mode %v", mode)
	}
	if info.Maps && !same {
		var others []string
		for _, o := range Registered() {
			if !o.Maps {
				others = append(others, o.Flag)
			}
		}
		return 0, fmt.Errorf("%s are on different hosts: --transport %s connects the GPUs of one host; use %s", pair, info.Flag, orList(append([]string{"auto"}, others...)))
	}
	if both&info.Transport != 0 {
		return info.Transport, nil
	}
	lacking := a.Rank
	if a.Transports&info.Transport != 0 {
		lacking = b.Rank
	}
	return 0, fmt.Errorf("%s: rank %d %s", pair, lacking, info.Lacking)
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
