package channels_test

import (
	"reflect"
	"strings"
	"testing"

	. "github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ib"
)

// The transports' records decide the choices below (priorities: CUDA IPC above
// InfiniBand above Ethernet; CUDA IPC maps, so it stays within a host).

// endpointsOn makes endpoints: hosts[r] is rank r's HostID, offers[r] what it offers beyond
// CUDA IPC.
func endpointsOn(hosts []string, offers []Transport) []Endpoint {
	eps := make([]Endpoint, len(hosts))
	for r := range hosts {
		eps[r] = Endpoint{Rank: r, HostID: hosts[r], Transports: cudaipc.Transport | offers[r]}
	}
	return eps
}

func repeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestSelectTransport covers one and two simulated hosts under every mode: which
// transport each pair gets, or which pair cannot connect and why.
func TestSelectTransport(t *testing.T) {
	const eth, hca = ethernet.Transport, ib.Transport
	oneHost := repeat("h", 4)
	twoHosts := []string{"a", "a", "b", "b"}
	cases := []struct {
		name   string
		mode   Mode
		hosts  []string
		offers []Transport
		want   string // DescribeTransports, or the error's text
		fails  bool
	}{
		{"1 host auto", ModeAuto, oneHost, repeat(eth|hca, 4), "hosts=1 within=cudaipc", false},
		{"1 host nvlink", cudaipc.Mode, oneHost, repeat(Transport(0), 4), "hosts=1 within=cudaipc", false},
		{"1 host ethernet", ethernet.Mode, oneHost, repeat(eth, 4), "hosts=1 within=ethernet", false},
		{"1 host ib", ib.Mode, oneHost, repeat(hca|eth, 4), "hosts=1 within=ib", false},
		{"1 host ib, rank 2 without an HCA", ib.Mode, oneHost, []Transport{hca, hca, eth, hca}, "rank 2 has no usable InfiniBand HCA", true},
		{"2 hosts auto, Ethernet only", ModeAuto, twoHosts, repeat(eth, 4), "hosts=2 within=cudaipc between=ethernet", false},
		{"2 hosts auto, HCAs everywhere", ModeAuto, twoHosts, repeat(eth|hca, 4), "hosts=2 within=cudaipc between=ib", false},
		{"2 hosts auto, host b without HCAs", ModeAuto, twoHosts, []Transport{eth | hca, eth | hca, eth, eth}, "hosts=2 within=cudaipc between=ethernet", false},
		{"2 hosts auto, one rank of b with an HCA", ModeAuto, twoHosts, []Transport{eth | hca, eth | hca, eth | hca, eth},
			"hosts=2 pairs=0-1:cudaipc,0-2:ib,0-3:ethernet,1-2:ib,1-3:ethernet,2-3:cudaipc", false},
		{"2 hosts auto, nothing between", ModeAuto, twoHosts, repeat(Transport(0), 4), "are on different hosts and share no transport", true},
		{"2 hosts nvlink", cudaipc.Mode, twoHosts, repeat(eth, 4), "are on different hosts: --transport nvlink", true},
		{"2 hosts ethernet", ethernet.Mode, twoHosts, repeat(eth|hca, 4), "hosts=2 within=ethernet between=ethernet", false},
		{"2 hosts ib", ib.Mode, twoHosts, repeat(eth|hca, 4), "hosts=2 within=ib between=ib", false},
		{"2 hosts, one rank each", ModeAuto, []string{"a", "b"}, repeat(eth, 2), "hosts=2 between=ethernet", false},
		{"1 rank", ModeAuto, []string{"a"}, repeat(eth, 1), "hosts=1", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eps := endpointsOn(c.hosts, c.offers)
			pairs := map[[2]int]Transport{}
			var firstErr error
			for i := range eps {
				for j := i + 1; j < len(eps); j++ {
					tr, err := SelectTransport(c.mode, eps[i], eps[j])
					back, errBack := SelectTransport(c.mode, eps[j], eps[i])
					if tr != back || (err == nil) != (errBack == nil) {
						t.Errorf("pair %d-%d: %v/%v one way, %v/%v the other", i, j, tr, err, back, errBack)
					}
					if err != nil && firstErr == nil {
						firstErr = err
					}
					pairs[[2]int{i, j}] = tr
				}
			}
			if c.fails {
				if firstErr == nil || !strings.Contains(firstErr.Error(), c.want) {
					t.Errorf("error %v, want one containing %q", firstErr, c.want)
				}
				return
			}
			if firstErr != nil {
				t.Fatal(firstErr)
			}
			got := DescribeTransports(eps, func(i, j int) Transport { return pairs[[2]int{i, j}] })
			if got != c.want {
				t.Errorf("transports %q, want %q", got, c.want)
			}
		})
	}
}

func TestParseModeAndHosts(t *testing.T) {
	for s, want := range map[string]Mode{"auto": ModeAuto, "nvlink": cudaipc.Mode, "cudaipc": cudaipc.Mode, "ethernet": ethernet.Mode, "ib": ib.Mode} {
		if m, err := ParseMode(s); err != nil || m != want {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseMode("tcp"); err == nil || !strings.Contains(err.Error(), "want auto, nvlink, ib or ethernet") {
		t.Errorf("ParseMode(tcp): %v", err)
	}
	for _, m := range []Mode{ModeAuto, cudaipc.Mode, ethernet.Mode, ib.Mode} {
		if back, err := ParseMode(m.String()); err != nil || back != m {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", m.String(), back, err, m)
		}
	}
	hosts := Hosts(endpointsOn([]string{"b", "a", "b", "c", "a"}, repeat(Transport(0), 5)))
	if want := [][]int{{0, 2}, {1, 4}, {3}}; !reflect.DeepEqual(hosts, want) {
		t.Errorf("Hosts = %v, want %v", hosts, want)
	}
	if s := (cudaipc.Transport | ethernet.Transport).String(); s != "cudaipc+ethernet" {
		t.Errorf("transport set prints as %q", s)
	}
}
